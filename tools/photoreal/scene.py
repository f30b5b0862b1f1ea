"""Blender (bpy) scene building and Cycles rendering to a linear float image.

Only this module imports bpy. Geometry comes in as numpy vertex/face lists.
"""
import math
import os

import numpy as np

os.environ.setdefault("OPENCV_IO_ENABLE_OPENEXR", "1")
import bpy  # noqa: E402
import cv2  # noqa: E402

import camera  # noqa: E402  (the frame size: camera.set_size)
from light_colour import srgb_to_linear  # noqa: E402


def _mat(name):
    m = bpy.data.materials.new(name)
    try:
        m.use_nodes = True
    except Exception:
        pass
    return m, m.node_tree.nodes, m.node_tree.links, m.node_tree.nodes["Principled BSDF"]


def _mesh_obj(name, V, F, smooth=None, mat=None, mesh=None):
    if mesh is None:
        mesh = bpy.data.meshes.new(name)
        mesh.from_pydata([tuple(map(float, v)) for v in V], [], [tuple(f) for f in F])
        mesh.update()
        if smooth is not None:
            mesh.polygons.foreach_set("use_smooth", [bool(s) for s in smooth])
        if mat is not None:
            mesh.materials.append(mat)
    ob = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(ob)
    return ob


class Renderer:
    def __init__(self, workdir, samples=12, threads=2):
        self.workdir = workdir
        os.makedirs(workdir, exist_ok=True)
        self.samples = samples
        self.threads = threads
        self.frame_objs = []
        self.piece_mats = {}
        self.piece_meshes = {}

    # ------------------------------------------------------------------ setup
    def new_table(self, tp, layout, style, meshes, texture_rgb, rng):
        bpy.ops.wm.read_factory_settings(use_empty=True)
        for coll in (bpy.data.meshes, bpy.data.materials, bpy.data.images, bpy.data.lights):
            for b in list(coll):
                coll.remove(b)
        sc = bpy.context.scene
        sc.render.engine = "CYCLES"
        sc.cycles.device = "CPU"
        sc.cycles.samples = self.samples
        sc.cycles.use_adaptive_sampling = True
        sc.cycles.adaptive_threshold = 0.05
        sc.cycles.adaptive_min_samples = 4
        sc.cycles.use_denoising = True
        sc.cycles.denoiser = "OPENIMAGEDENOISE"
        sc.cycles.denoising_input_passes = "RGB_ALBEDO_NORMAL"
        sc.cycles.max_bounces = 4
        sc.cycles.diffuse_bounces = 2
        sc.cycles.glossy_bounces = 2
        sc.cycles.transmission_bounces = 0
        sc.cycles.transparent_max_bounces = 2
        sc.cycles.caustics_reflective = False
        sc.cycles.caustics_refractive = False
        sc.cycles.blur_glossy = 1.0
        sc.cycles.sample_clamp_indirect = 5.0
        sc.cycles.seed = int(rng.integers(0, 10000))
        sc.render.threads_mode = "FIXED"
        sc.render.threads = self.threads
        sc.render.use_persistent_data = True
        sc.render.resolution_x, sc.render.resolution_y = camera.W, camera.H  # (camera.set_size)
        sc.render.resolution_percentage = 100
        sc.render.film_transparent = False
        sc.render.filter_size = 1.2
        ims = sc.render.image_settings
        try:
            ims.media_type = "IMAGE"
        except Exception:
            pass
        ims.file_format = "OPEN_EXR"
        ims.color_depth = "16"
        ims.exr_codec = "ZIP"
        # world: dim room ambient
        world = bpy.data.worlds.new("room")
        sc.world = world
        try:
            world.use_nodes = True
        except Exception:
            pass
        bg = world.node_tree.nodes.get("Background")
        amb = tp["ambient_rgb"]
        bg.inputs["Color"].default_value = (*amb, 1.0)
        bg.inputs["Strength"].default_value = tp["ambient"]

        self._table(tp, rng)
        self._board(tp, layout, texture_rgb)
        self._lights(tp)
        self._piece_materials(style, tp)
        self.piece_meshes = {}
        self.own_mat_kinds = set()
        for kind, m in meshes.items():
            me = bpy.data.meshes.new("piece_" + kind)
            me.from_pydata([tuple(map(float, v)) for v in m["verts"]], [], [tuple(f) for f in m["faces"]])
            me.update()
            me.polygons.foreach_set("use_smooth", [bool(s) for s in m["smooth"]])
            if "uv" in m and kind in style.get("faces", {}):
                # a printed piece (Cheops tiles): UVs, cardboard core (slot 0) + its printed face (slot 1)
                uv = me.uv_layers.new(name="UVMap")
                for poly, fuv in zip(me.polygons, m["uv"]):
                    for li, t in zip(poly.loop_indices, fuv):
                        uv.data[li].uv = (float(t[0]), float(t[1]))
                me.materials.append(self.card_mat)
                me.materials.append(self._printed_face(kind, style["faces"][kind], style))
                me.polygons.foreach_set("material_index", [int(i) for i in m["mat"]])
                self.own_mat_kinds.add(kind)
            self.piece_meshes[kind] = me
        self._skin_materials(tp)
        cam_data = bpy.data.cameras.new("cam")
        cam_data.sensor_fit = "HORIZONTAL"
        cam_data.sensor_width = 36.0
        cam_data.clip_start = 0.01
        cam_data.clip_end = 20
        self.cam = bpy.data.objects.new("cam", cam_data)
        sc.collection.objects.link(self.cam)
        sc.camera = self.cam
        self.frame_objs = []

    def _table(self, tp, rng):
        m, n, l, bsdf = _mat("table")
        tc = n.new("ShaderNodeTexCoord")
        mp = n.new("ShaderNodeMapping")
        l.new(tc.outputs["Object"], mp.inputs["Vector"])
        ramp = n.new("ShaderNodeValToRGB")
        c0, c1 = tp["table_rgb"]
        ramp.color_ramp.elements[0].color = (*srgb_to_linear(c0), 1)
        ramp.color_ramp.elements[1].color = (*srgb_to_linear(c1), 1)
        if tp["table_kind"] == "wood":
            mp.inputs["Scale"].default_value = (1.0, 8.0, 1.0)
            mp.inputs["Rotation"].default_value = (0, 0, tp["table_rot"])
            wv = n.new("ShaderNodeTexWave")
            wv.wave_type = "BANDS"
            wv.inputs["Scale"].default_value = 3.0
            wv.inputs["Distortion"].default_value = 6.0
            wv.inputs["Detail"].default_value = 3.0
            l.new(mp.outputs["Vector"], wv.inputs["Vector"])
            l.new(wv.outputs["Fac"], ramp.inputs["Fac"])
            bsdf.inputs["Roughness"].default_value = tp["table_rough"]
        else:  # cloth / felt
            mp.inputs["Scale"].default_value = (1.0, 1.0, 1.0)
            nz = n.new("ShaderNodeTexNoise")
            nz.inputs["Scale"].default_value = 400.0
            nz.inputs["Detail"].default_value = 2.0
            l.new(mp.outputs["Vector"], nz.inputs["Vector"])
            l.new(nz.outputs["Fac"], ramp.inputs["Fac"])
            bsdf.inputs["Roughness"].default_value = 0.95
            bsdf.inputs["Specular IOR Level"].default_value = 0.2
        l.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
        s = 3.0
        ob = _mesh_obj("table", [(-s, -s, 0), (s, -s, 0), (s, s, 0), (-s, s, 0)], [(0, 1, 2, 3)], mat=m)
        ob.location = (0, 0, -tp["board_thick"])

    def _board(self, tp, layout, tex_rgb):
        path = os.path.join(self.workdir, "board_tex.png")
        cv2.imwrite(path, cv2.cvtColor(tex_rgb, cv2.COLOR_RGB2BGR))
        img = bpy.data.images.load(path)
        img.colorspace_settings.name = "sRGB"
        m, n, l, bsdf = _mat("board")
        ti = n.new("ShaderNodeTexImage")
        ti.image = img
        ti.interpolation = "Cubic"
        l.new(ti.outputs["Color"], bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = tp["board_rough"]
        if tp["varnish"]:
            bsdf.inputs["Coat Weight"].default_value = tp["coat"]
            bsdf.inputs["Coat Roughness"].default_value = tp["coat_rough"]
        W, H = layout.W / 1000, layout.H / 1000
        t = tp["board_thick"]
        me = bpy.data.meshes.new("board")
        V = [(-W / 2, -H / 2, 0), (W / 2, -H / 2, 0), (W / 2, H / 2, 0), (-W / 2, H / 2, 0)]
        me.from_pydata(V, [], [(0, 1, 2, 3)])
        me.update()
        uv = me.uv_layers.new(name="UVMap")
        # vertex (x, y) -> u = x/W + .5, v = y/H + .5 (board y_mm=0 is +Y, image top = v 1)
        for loop in me.loops:
            x, y, _ = V[loop.vertex_index]
            uv.data[loop.index].uv = (x / W + 0.5, y / H + 0.5)
        me.materials.append(m)
        ob = bpy.data.objects.new("board", me)
        bpy.context.scene.collection.objects.link(ob)
        # board edge (cardboard)
        m2, n2, l2, b2 = _mat("board_edge")
        b2.inputs["Base Color"].default_value = (*srgb_to_linear(tp["edge_rgb"]), 1)
        b2.inputs["Roughness"].default_value = 0.8
        e = 0.0002
        V2 = [(-W / 2 - e, -H / 2 - e, -t), (W / 2 + e, -H / 2 - e, -t), (W / 2 + e, H / 2 + e, -t), (-W / 2 - e, H / 2 + e, -t),
              (-W / 2 - e, -H / 2 - e, -0.0003), (W / 2 + e, -H / 2 - e, -0.0003), (W / 2 + e, H / 2 + e, -0.0003), (-W / 2 - e, H / 2 + e, -0.0003)]
        F2 = [(0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7), (4, 5, 6, 7)]
        _mesh_obj("board_edge", V2, F2, mat=m2)

    def _lights(self, tp):
        self.lights = []
        for i, L in enumerate(tp["lights"]):
            ld = bpy.data.lights.new(f"light{i}", L["type"])
            ld.energy = L["energy"]
            ld.color = tuple(L["rgb"] / L["rgb"].max())
            if L["type"] == "AREA":
                ld.shape = "RECTANGLE"
                ld.size, ld.size_y = L["size"]
            else:
                ld.shadow_soft_size = L["radius"]
            ob = bpy.data.objects.new(f"light{i}", ld)
            bpy.context.scene.collection.objects.link(ob)
            pos = np.array(L["pos"], float)
            z = pos - np.array(L["aim"], float)
            z /= np.linalg.norm(z)
            x = np.cross([0, 0, 1.0], z)
            if np.linalg.norm(x) < 1e-6:
                x = np.array([1.0, 0, 0])
            x /= np.linalg.norm(x)
            y = np.cross(z, x)
            M = np.eye(4); M[:3, 0], M[:3, 1], M[:3, 2], M[:3, 3] = x, y, z, pos
            import mathutils
            ob.matrix_world = mathutils.Matrix([list(r) for r in M])
            self.lights.append((ob, L["energy"]))

    def set_light_scale(self, s):
        for ob, e in self.lights:
            ob.data.energy = e * s

    def _wood_paint(self, name, rgb, style, rough):
        m, n, l, bsdf = _mat(name)
        tc = n.new("ShaderNodeTexCoord")
        oi = n.new("ShaderNodeObjectInfo")
        mp = n.new("ShaderNodeMapping")
        mp.inputs["Scale"].default_value = (60.0 * style["grain_scale"], 8.0 * style["grain_scale"], 60.0 * style["grain_scale"])
        add = n.new("ShaderNodeVectorMath"); add.operation = "ADD"
        l.new(tc.outputs["Object"], add.inputs[0])
        l.new(oi.outputs["Random"], add.inputs[1])
        l.new(add.outputs["Vector"], mp.inputs["Vector"])
        wv = n.new("ShaderNodeTexWave")
        wv.wave_type = "RINGS"
        wv.inputs["Scale"].default_value = 1.5
        wv.inputs["Distortion"].default_value = 4.0
        wv.inputs["Detail"].default_value = 2.0
        l.new(mp.outputs["Vector"], wv.inputs["Vector"])
        ramp = n.new("ShaderNodeValToRGB")
        base = srgb_to_linear(rgb)
        g = style["grain"]
        ramp.color_ramp.elements[0].color = (*(base * (1 - g)), 1)
        ramp.color_ramp.elements[1].color = (*np.clip(base * (1 + g * 0.4), 0, 1), 1)
        l.new(wv.outputs["Fac"], ramp.inputs["Fac"])
        # per-piece brightness jitter (+-3 %)
        mul = n.new("ShaderNodeVectorMath"); mul.operation = "SCALE"
        mr = n.new("ShaderNodeMapRange")
        mr.inputs["To Min"].default_value = 0.97
        mr.inputs["To Max"].default_value = 1.03
        l.new(oi.outputs["Random"], mr.inputs["Value"])
        l.new(ramp.outputs["Color"], mul.inputs[0])
        l.new(mr.outputs["Result"], mul.inputs["Scale"])
        l.new(mul.outputs["Vector"], bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = rough
        bsdf.inputs["Specular IOR Level"].default_value = 0.5
        return m

    def _printed_face(self, kind, rgb, style):
        path = os.path.join(self.workdir, f"face_{kind}.png")
        cv2.imwrite(path, cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR))
        img = bpy.data.images.load(path)
        img.colorspace_settings.name = "sRGB"
        m, n, l, bsdf = _mat("print_" + kind)
        ti = n.new("ShaderNodeTexImage")
        ti.image = img
        ti.interpolation = "Cubic"
        ti.extension = "EXTEND"
        # each copy a little off in hue and brightness (object random)
        oi = n.new("ShaderNodeObjectInfo")
        hsv = n.new("ShaderNodeHueSaturation")
        mr = n.new("ShaderNodeMapRange")
        mr.inputs["To Min"].default_value = 0.96
        mr.inputs["To Max"].default_value = 1.04
        l.new(oi.outputs["Random"], mr.inputs["Value"])
        mh = n.new("ShaderNodeMapRange")
        mh.inputs["To Min"].default_value = 0.49
        mh.inputs["To Max"].default_value = 0.51
        l.new(oi.outputs["Random"], mh.inputs["Value"])
        l.new(mh.outputs["Result"], hsv.inputs["Hue"])
        l.new(mr.outputs["Result"], hsv.inputs["Value"])
        l.new(ti.outputs["Color"], hsv.inputs["Color"])
        l.new(hsv.outputs["Color"], bsdf.inputs["Base Color"])
        bsdf.inputs["Roughness"].default_value = style.get("print_rough", 0.6)
        bsdf.inputs["Specular IOR Level"].default_value = 0.4
        return m

    def _piece_materials(self, style, tp):
        self.piece_mats = {}
        if "card_rgb" in style:
            m, n, l, bsdf = _mat("cardboard")
            bsdf.inputs["Base Color"].default_value = (*srgb_to_linear(style["card_rgb"]), 1)
            bsdf.inputs["Roughness"].default_value = 0.85
            self.card_mat = m
        for owner, rgb in style["colours"].items():
            rough = style["roughness"] if owner != "neutral" else min(0.8, style["roughness"] + 0.1)
            self.piece_mats[owner] = self._wood_paint("paint_" + owner, rgb, style, rough)

    def _skin_materials(self, tp):
        m, n, l, bsdf = _mat("skin")
        bsdf.inputs["Base Color"].default_value = (*srgb_to_linear(tp["skin_rgb"]), 1)
        bsdf.inputs["Roughness"].default_value = 0.5
        bsdf.inputs["Subsurface Weight"].default_value = 0.0
        self.skin = m
        m2, n2, l2, b2 = _mat("sleeve")
        b2.inputs["Base Color"].default_value = (*srgb_to_linear(tp["sleeve_rgb"]), 1)
        b2.inputs["Roughness"].default_value = 0.9
        self.sleeve = m2

    # ------------------------------------------------------------------ per frame
    def clear_frame(self):
        for ob in self.frame_objs:
            me = ob.data
            bpy.data.objects.remove(ob, do_unlink=True)
            if me is not None and me.users == 0 and not me.name.startswith("piece_"):
                bpy.data.meshes.remove(me)
        self.frame_objs = []

    def add_pieces(self, layout, pieces):
        for i, p in enumerate(pieces):
            ob = _mesh_obj(f"p{i}", None, None, mesh=self.piece_meshes[p["kind"]])
            if p["kind"] not in self.own_mat_kinds:
                self._assign(ob, self.piece_mats[p.get("mat", p["owner"])])
            ob.location = tuple(layout.to_world(p["x_mm"], p["y_mm"]) + np.array([0, 0, p["z"]]))
            ob.rotation_euler = (0, p.get("ry", 0.0), p["rot"])  # ry: a fanned card's tilt (Great Wall)
            ob.scale = p["scale"]
            self.frame_objs.append(ob)

    @staticmethod
    def _assign(ob, mat):
        # meshes are shared between pieces: put the material on the object slot
        if len(ob.data.materials) == 0:
            ob.data.materials.append(None)
        ob.material_slots[0].link = "OBJECT"
        ob.material_slots[0].material = mat

    def add_hand(self, hand):
        for name, (V, F) in hand["parts"].items():
            mat = self.sleeve if name == "sleeve" else self.skin
            ob = _mesh_obj("hand_" + name, V, F, smooth=[True] * len(F), mat=mat)
            self.frame_objs.append(ob)

    def set_camera(self, cam):
        self.cam.data.lens = 18.0 / math.tan(math.radians(cam.hfov) / 2)
        M = cam.blender_matrix()
        import mathutils
        self.cam.matrix_world = mathutils.Matrix([list(r) for r in M])

    def render(self, name):
        path = os.path.join(self.workdir, name + ".exr")
        sc = bpy.context.scene
        sc.render.filepath = path
        bpy.ops.render.render(write_still=True)
        img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
        if img is None:
            raise IOError("could not read " + path)
        img = img[..., :3][..., ::-1].astype(np.float32)  # BGR(A) -> RGB
        return np.ascontiguousarray(img)
