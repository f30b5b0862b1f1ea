"""An independent source of dice-tray frames for measuring ``vision.dice`` on images it was not
tuned on (bench/bench_dice.py). It shares no code with ``vision/`` (nor ``scorer``, ``tableref``,
``hardware``, ``web``): camera, board artwork, die (a ray-marched cube with rounded edges and
painted pips), hands, light and sensor are drawn here with numpy and OpenCV; the only project
file it reads is the layout JSON, as plain data. See frames.py for the ranges and the seed
ranges of the tuning and held-out splits."""
