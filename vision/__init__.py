"""Camera frames -> which pieces stand on which board space: board registration by fiducial
markers, per-table colour calibration, piece recognition, occlusion detection, and a synthetic
scene renderer with ground truth for tests and benchmarks.
"""
