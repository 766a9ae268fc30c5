"""Nothing lost, nothing clobbered, nothing opened up (issue 14, items 3 to 7 and Ctrl-C):

- ``export`` refuses to write over its own input and a suffix that names another format;
- an export is all or nothing (staged beside the target, moved into place last), also when it
  fails, is interrupted by Ctrl-C or killed by SIGTERM half way through;
- an overwritten file keeps its mode, a symlink is written through, a read-only file is
  refused unless ``--force``;
- every output path is checked before any work; a missing folder is created;
- errors name the user's path, never a temporary one;
- Ctrl-C (also one a library swallows) and SIGTERM stop with one line and 130 / 143.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import rigidparts as rp
from rigidparts import fileio
from rigidparts.commands import main
from rigidparts.export import export

PYTHON = sys.executable

MODEL = """\
[bodies.arm]
shape = "box"
length = 0.5
width = 0.05
height = 0.05

[bodies.bob]
shape = "cone"
length = 0.1
radius_a = 0.05
radius_b = 0.02
inner_radius_a = 0.01

[bodies.tip]
shape = "cone"
length = 0.05
radius_a = 0.02
radius_b = 0.0

[[joints]]
name = "hinge"
type = "revolute"
parent = "world"
child = "arm.frame_a"
axis = [0, 1, 0]

[[joints]]
name = "fix"
type = "fixed"
parent = "arm.frame_b"
child = "bob.frame_a"

[[joints]]
name = "fix2"
type = "fixed"
parent = "bob.frame_b"
child = "tip.frame_a"
"""


def chain_model(count: int) -> str:
    """A chain of ``count`` hollow cones (all exported as meshes)."""
    parts = [
        f'[bodies.b{i}]\nshape = "cone"\nlength = 0.1\nradius_a = 0.02\nradius_b = 0.01\n'
        "inner_radius_a = 0.005\n"
        for i in range(count)
    ]
    for i in range(count):
        parent = "world" if i == 0 else f"b{i - 1}.frame_b"
        parts.append(
            f'[[joints]]\nname = "j{i}"\ntype = "revolute"\nparent = "{parent}"\n'
            f'child = "b{i}.frame_a"\naxis = [0, 1, 0]\n'
        )
    return "\n".join(parts)


@pytest.fixture(autouse=True)
def _ctrl_c_handled() -> Iterator[None]:
    """Ctrl-C as Python handles it by default, in this process and the commands it starts,
    however the suite was launched: started in the background of a non-interactive shell
    (``pytest &``) it inherits SIGINT ignored, which the command line rightly keeps ignored
    (as ``nohup`` asks), and the Ctrl-C tests would see the command run on to exit 0."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "model.toml"
    path.write_text(MODEL, encoding="utf-8")
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_error(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    return lines[0]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative path -> bytes)."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def hidden_entries(folder: Path) -> list[str]:
    """Temporary files or folders left behind (their names start with a dot)."""
    return sorted(p.name for p in folder.rglob(".*"))


# -- 3. export never overwrites its input; the suffix agrees with --format -------------------


def test_export_refuses_its_own_input(capsys, model_file: Path, tmp_path: Path) -> None:
    before = model_file.read_bytes()
    link = tmp_path / "link.toml"
    link.symlink_to(model_file)
    for output in (model_file, link, tmp_path / "." / "model.toml"):
        code, out, err = run(capsys, "export", model_file, "-o", output, "--format", "mjcf")
        assert code == 2 and out == ""
        assert "model file" in one_error(err)
        assert model_file.read_bytes() == before
    # and the other way round: the input given through a symlink
    code, _, err = run(capsys, "export", link, "-o", model_file, "--format", "urdf")
    assert code == 2 and "model file" in one_error(err)
    assert model_file.read_bytes() == before and hidden_entries(tmp_path) == []


@pytest.mark.parametrize(
    ("name", "fmt"), [("x.urdf", "sdf"), ("x.sdf", "mjcf"), ("x.xml", "urdf"), ("x.MJCF", "sdf")]
)
def test_export_refuses_a_suffix_of_another_format(
    capsys, model_file: Path, tmp_path: Path, name: str, fmt: str
) -> None:
    code, out, err = run(capsys, "export", model_file, "-o", tmp_path / name, "--format", fmt)
    assert code == 2 and out == ""
    line = one_error(err)
    assert "format" in line and "contradicts" in line
    assert not (tmp_path / name).exists()
    with pytest.raises(rp.ParameterError, match="contradicts the suffix"):
        export(rp.load_model(model_file), tmp_path / name, fmt)


def test_a_suffix_of_no_format_takes_the_given_format(model_file: Path, tmp_path: Path) -> None:
    text = export(rp.load_model(model_file), tmp_path / "robot.txt", "urdf")
    assert (tmp_path / "robot.txt").read_text(encoding="utf-8") == text and "<robot" in text


# -- 4. all or nothing --------------------------------------------------------------------------


def test_a_failed_export_leaves_the_old_one(
    monkeypatch, capsys, model_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "robot.urdf"
    export(rp.load_model(model_file), out, sections=16)
    old = snapshot(tmp_path)
    assert "robot_meshes/bob.obj" in old and "robot_meshes/tip.obj" in old

    from rigidparts.export import _common

    written: list[str] = []
    real = _common.mesh_obj_bytes

    def fails_on_the_second(mesh):
        written.append("mesh")
        if len(written) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(mesh)

    monkeypatch.setattr(_common, "mesh_obj_bytes", fails_on_the_second)
    code, _, err = run(capsys, "export", model_file, "-o", out, "--sections", "32")
    assert code == 2
    assert one_error(err) == f"error: {out}: No space left on device"
    assert snapshot(tmp_path) == old  # the old model file and every old mesh, unchanged
    assert hidden_entries(tmp_path) == []


def test_export_keeps_other_files_in_the_mesh_folder(model_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "robot.sdf"
    model = rp.load_model(model_file)
    export(model, out, sections=16)
    (tmp_path / "robot_meshes" / "notes.txt").write_text("mine", encoding="utf-8")
    export(model, out, sections=24)
    assert (tmp_path / "robot_meshes" / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert (tmp_path / "robot_meshes" / "bob.obj").read_bytes() != b""
    assert hidden_entries(tmp_path) == []


def test_a_failed_final_rename_puts_the_old_meshes_back(
    monkeypatch, model_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "robot.urdf"
    model = rp.load_model(model_file)
    export(model, out, sections=16)
    old = snapshot(tmp_path)
    real_replace = os.replace

    def refuse_the_model_file(source, destination, *args, **kwargs):
        if Path(destination) == out:
            raise PermissionError(errno.EACCES, "Permission denied", str(source))
        return real_replace(source, destination, *args, **kwargs)

    monkeypatch.setattr(fileio.os, "replace", refuse_the_model_file)
    with pytest.raises(PermissionError) as info:
        export(model, out, sections=32)
    assert info.value.filename == str(out)  # the user's path, not the staged one
    assert snapshot(tmp_path) == old and hidden_entries(tmp_path) == []


def _writing_meshes(folder: Path) -> bool:
    """Whether a mesh is being written under a temporary name (or in a temporary folder).
    The export removes its temporary folder while this walks it: a folder gone meanwhile is
    no mesh being written."""
    try:
        return any(
            any(part.startswith(".") for part in p.relative_to(folder).parts)
            for p in folder.rglob("*.obj")
        )
    except FileNotFoundError:
        return False


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_killed_export_leaves_the_old_or_the_new_one(
    tmp_path: Path, signum: int, status: int
) -> None:
    """A big export interrupted while its files are being written: afterwards the folder
    holds exactly the old export or exactly the new one, and no temporary file."""
    model_file = tmp_path / "chain.toml"
    model_file.write_text(chain_model(150), encoding="utf-8")
    model = rp.load_model(model_file)
    new_dir = tmp_path / "new"
    new_dir.mkdir()
    export(model, new_dir / "chain.urdf", sections=128)
    new = snapshot(new_dir)
    work = tmp_path / "work"
    work.mkdir()
    export(model, work / "chain.urdf", sections=16)
    old = snapshot(work)
    assert old != new

    argv = [PYTHON, "-m", "rigidparts.commands", "export", str(model_file)]
    argv += ["-o", str(work / "chain.urdf"), "--sections", "128"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            if _writing_meshes(work):
                break
            time.sleep(0.002)
        process.send_signal(signum)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    after = snapshot(work)
    assert after in (old, new), "a mix of the old and the new export"
    assert hidden_entries(work) == []
    if after == old:  # stopped before the commit: the signal was handled
        assert process.returncode == status
        assert err.strip().splitlines()[-1] in ("error: interrupted", "error: terminated")
        assert "Traceback" not in err


# -- 5. modes, symlinks, read-only files -------------------------------------------------------


def _writers(model_file: Path, tmp_path: Path):
    """(suffix, command line writing to {out}) for each command that writes a file."""
    return [
        (".urdf", ["export", model_file, "-o", "{out}"]),
        (".stl", ["mesh", "box", "-o", "{out}"]),
        (".obj", ["mesh", "cone", "--sections", "8", "-o", "{out}"]),
        (".png", ["view", "box", "-o", "{out}", "--size", "200x150"]),
    ]


@pytest.mark.parametrize("index", range(4))
def test_an_overwritten_file_keeps_its_mode(capsys, model_file, tmp_path, index) -> None:
    suffix, argv = _writers(model_file, tmp_path)[index]
    out = tmp_path / f"out{suffix}"
    out.write_bytes(b"old")
    out.chmod(0o600)
    code, _, err = run(capsys, *[str(a).format(out=out) for a in argv])
    assert code == 0, err
    assert out.read_bytes() != b"old"
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert hidden_entries(tmp_path) == []


def test_a_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    mask = os.umask(0o027)
    try:
        fileio.atomic_write(tmp_path / "new.txt", "x")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640


@pytest.mark.parametrize("index", range(4))
def test_a_symlink_is_written_through(capsys, model_file, tmp_path, index) -> None:
    suffix, argv = _writers(model_file, tmp_path)[index]
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    real = real_dir / f"target{suffix}"
    real.write_bytes(b"old")
    link = tmp_path / f"link{suffix}"
    link.symlink_to(real)
    code, _, err = run(capsys, *[str(a).format(out=link) for a in argv])
    assert code == 0, err
    assert link.is_symlink() and link.resolve() == real
    assert real.read_bytes() != b"old"
    if suffix == ".urdf":  # the meshes sit beside the file the model file really is, and are
        # named after it (issue 23, item 7): the same folder as an export to it directly
        assert (real_dir / "target_meshes" / "bob.obj").is_file()
        assert "target_meshes/bob.obj" in real.read_text(encoding="utf-8")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["link.urdf", "model.toml", "real"]


@pytest.mark.parametrize("index", range(4))
def test_a_read_only_file_is_refused_unless_forced(capsys, model_file, tmp_path, index) -> None:
    suffix, argv = _writers(model_file, tmp_path)[index]
    out = tmp_path / f"locked{suffix}"
    out.write_bytes(b"old")
    out.chmod(0o444)
    argv = [str(a).format(out=out) for a in argv]
    code, stdout, err = run(capsys, *argv)
    assert code == 2 and stdout == ""
    line = one_error(err)
    assert str(out) in line and "read-only" in line and "--force" in line
    assert out.read_bytes() == b"old"
    code, _, err = run(capsys, *argv, "--force")
    assert code == 0, err
    assert out.read_bytes() != b"old"
    assert stat.S_IMODE(out.stat().st_mode) == 0o444  # forced, yet its mode kept
    assert hidden_entries(tmp_path) == []


def test_library_writes_refuse_read_only_files(model_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "locked.urdf"
    out.write_text("old", encoding="utf-8")
    out.chmod(0o444)
    model = rp.load_model(model_file)
    with pytest.raises(PermissionError, match="read-only"):
        export(model, out)
    assert out.read_text(encoding="utf-8") == "old"
    export(model, out, force=True)
    assert "<robot" in out.read_text(encoding="utf-8")


# -- 6. outputs checked before any work; missing folders made ---------------------------------


@pytest.fixture
def no_work(monkeypatch):
    """Any attempt at the work fails the test: loading a model, meshing a body, simulating."""

    def forbidden(*args, **kwargs):
        raise AssertionError("the work started before the output was checked")

    import rigidparts.mesh
    import rigidparts.model

    monkeypatch.setattr(rigidparts.model, "load_model", forbidden)
    monkeypatch.setattr(rigidparts.mesh, "body_mesh", forbidden)
    monkeypatch.setattr(rp.Component, "mesh", forbidden)


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "{model}", "-o", "{folder}"],
        ["simulate", "{model}", "-o", "{tmp}/ok.csv", "--animate", "{folder_gif}"],
        ["simulate", "{model}", "-o", "{tmp}/ok.csv", "--animate", "{file}/x.gif"],
        ["simulate", "{model}", "-o", "{model}"],
        ["export", "{model}", "-o", "{folder_urdf}"],
        ["export", "{model}", "-o", "{file}/x.urdf"],
        ["mesh", "box", "-o", "{folder_stl}"],
        ["view", "box", "-o", "{folder_png}"],
        ["view", "{model}", "-o", "{folder_png}"],
    ],
)
def test_outputs_are_checked_before_any_work(capsys, tmp_path, model_file, no_work, argv):
    names = {"tmp": tmp_path, "model": model_file, "file": tmp_path / "plain.txt"}
    (tmp_path / "plain.txt").write_text("x", encoding="utf-8")
    for key, name in [
        ("folder", "out"),
        ("folder_gif", "anim.gif"),
        ("folder_urdf", "robot.urdf"),
        ("folder_stl", "m.stl"),
        ("folder_png", "p.png"),
    ]:
        (tmp_path / name).mkdir()
        names[key] = tmp_path / name
    before = snapshot(tmp_path)
    code, out, err = run(capsys, *[a.format(**names) for a in argv])
    assert code == 2 and out == ""
    line = one_error(err)
    assert "folder" in line or "model file" in line
    assert snapshot(tmp_path) == before  # ok.csv not written either


def test_missing_folders_are_made(capsys, model_file: Path, tmp_path: Path) -> None:
    outputs = [
        ("export", model_file, "-o", tmp_path / "out" / "deep" / "pendulum.sdf"),
        ("mesh", "cone", "--sections", "8", "-o", tmp_path / "meshes" / "cone.obj"),
        ("view", "box", "--size", "200x150", "-o", tmp_path / "pictures" / "box.png"),
    ]
    for argv in outputs:
        code, _, err = run(capsys, *argv)
        assert code == 0, err
        assert Path(argv[-1]).is_file()
    assert (tmp_path / "out" / "deep" / "pendulum_meshes" / "bob.obj").is_file()


@pytest.mark.skipif(__import__("importlib").util.find_spec("mujoco") is None, reason="needs MuJoCo")
def test_simulate_makes_the_csv_folder(capsys, model_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs" / "one.csv"
    code, _, err = run(capsys, "simulate", model_file, "--duration", "0.01", "-q", "-o", out)
    assert code == 0, err
    assert out.read_text(encoding="utf-8").startswith("time,")


# -- 7. messages name the user's path ---------------------------------------------------------


def test_no_space_names_the_users_file(monkeypatch, capsys, tmp_path: Path) -> None:
    def full(path):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(fileio, "_fsync", full)
    out = tmp_path / "part.stl"
    code, _, err = run(capsys, "mesh", "box", "-o", out)
    assert code == 2
    assert one_error(err) == f"error: {out}: No space left on device"
    assert list(tmp_path.iterdir()) == []


def test_a_refused_rename_names_the_users_file(monkeypatch, tmp_path: Path) -> None:
    def refuse(source, destination):
        raise PermissionError(errno.EACCES, "Permission denied", str(source))

    monkeypatch.setattr(fileio.os, "replace", refuse)
    with pytest.raises(PermissionError) as info:
        fileio.atomic_write(tmp_path / "a.csv", "x")
    assert info.value.filename == str(tmp_path / "a.csv")
    assert list(tmp_path.iterdir()) == []


def test_a_folder_as_output_names_it(capsys, tmp_path: Path) -> None:
    folder = tmp_path / "adir.stl"
    folder.mkdir()
    code, _, err = run(capsys, "mesh", "box", "-o", folder)
    line = one_error(err)
    assert code == 2 and str(folder) in line and "is a folder" in line
    assert ".tmp" not in line and list(folder.iterdir()) == []
    with pytest.raises(IsADirectoryError) as info:
        fileio.atomic_write(folder, "x")
    assert info.value.filename == str(folder)


def test_an_error_inside_a_write_removes_the_temporary_file(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), fileio.atomic_path(tmp_path / "x.png") as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("the writer failed")
    assert list(tmp_path.iterdir()) == []


# -- Ctrl-C and SIGTERM -------------------------------------------------------------------------

#: Runs the command line after its imports and says so on stderr ("ready"), so the signal
#: lands in the command itself (the console script's own start-up is not this test's).
_LAUNCH = textwrap.dedent(
    """
    import sys
    from rigidparts.commands import main
    print("ready", file=sys.stderr, flush=True)
    sys.exit(main(sys.argv[1:]))
    """
)


def _signal_after_ready(argv: list[str], signum: int, delay: float) -> tuple[int, str]:
    process = subprocess.Popen(
        [PYTHON, "-c", _LAUNCH, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stderr is not None
        assert process.stderr.readline().strip() == "ready"
        time.sleep(delay)
        process.send_signal(signum)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    return process.returncode, err


@pytest.mark.parametrize("delay", [0.05, 0.3, 1.0])
def test_ctrl_c_during_mesh_stops_with_130(tmp_path: Path, delay: float) -> None:
    """Ctrl-C while trimesh is imported (it catches BaseException around some imports) or
    while the mesh is built: exit status 130, one line, no file."""
    out = tmp_path / "big.stl"
    argv = ["mesh", "cone", "--sections", "60000", "--inner-radius-a", "0.1", "-o", str(out)]
    status, err = _signal_after_ready(argv, signal.SIGINT, delay)
    assert status == 130, err
    assert err.strip() == "error: interrupted"
    assert list(tmp_path.iterdir()) == []


def test_sigterm_during_mesh_stops_with_143(tmp_path: Path) -> None:
    out = tmp_path / "big.obj"
    argv = ["mesh", "cone", "--sections", "60000", "--inner-radius-a", "0.1", "-o", str(out)]
    status, err = _signal_after_ready(argv, signal.SIGTERM, 0.5)
    assert status == 143, err
    assert err.strip() == "error: terminated"
    assert list(tmp_path.iterdir()) == []


def test_a_swallowed_ctrl_c_is_not_success(monkeypatch, capsys, tmp_path: Path) -> None:
    """A library that catches KeyboardInterrupt cannot turn Ctrl-C into exit status 0: the
    command fails with 130 and commits no file."""
    import rigidparts.mesh

    real = rigidparts.mesh.body_mesh

    def swallowing(body, **kwargs):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the handler runs here
        except KeyboardInterrupt:
            pass  # what trimesh does around some of its imports
        return real(body, **kwargs)

    monkeypatch.setattr(rigidparts.mesh, "body_mesh", swallowing)
    code, out, err = run(capsys, "mesh", "box", "-o", tmp_path / "b.stl")
    assert code == 130 and out == ""
    assert one_error(err) == "error: interrupted"
    assert list(tmp_path.iterdir()) == []
    # The signal stopped that command only: a library write after it in the same program
    # commits its file.
    monkeypatch.setattr(rigidparts.mesh, "body_mesh", real)
    rigidparts.mesh.export_mesh(real(rp.Box()), tmp_path / "after.stl")
    assert (tmp_path / "after.stl").stat().st_size > 0


@pytest.mark.parametrize("files", ["folder", "file"])
def test_a_late_delivery_of_ctrl_c_does_not_cut_the_clean_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: str
) -> None:
    """A Ctrl-C that came during an import is delivered by the command line's SIGALRM 20 ms
    later; when the interrupt was raised another way meanwhile, that alarm fires during the
    clean-up of the temporary files. The clean-up must still remove them all (found by a
    killed export that left ``.chain.urdf.XXXX.tmp/chain_meshes/b0.obj`` behind): here the
    alarm is armed to fire while the clean-up runs (slowed down to make sure)."""
    from rigidparts import commands

    real_rmtree, real_unlink = fileio.shutil.rmtree, Path.unlink

    def slow_rmtree(path, *args, **kwargs):
        time.sleep(0.1)  # the alarm (armed for 10 ms) fires here
        real_rmtree(path, *args, **kwargs)

    def slow_unlink(self, *args, **kwargs):
        if ".tmp" in self.name:
            time.sleep(0.1)
        real_unlink(self, *args, **kwargs)

    monkeypatch.setattr(fileio.shutil, "rmtree", slow_rmtree)
    monkeypatch.setattr(Path, "unlink", slow_unlink)
    previous = signal.signal(signal.SIGALRM, commands._on_alarm)
    try:
        with pytest.raises(KeyboardInterrupt):
            if files == "folder":
                with fileio.atomic_files(tmp_path / "out.urdf", "out_meshes") as (_file, folder):
                    folder.mkdir()
                    (folder / "b0.obj").write_text("v 0 0 0\n")
                    fileio.note_interrupt(signal.SIGINT)
                    signal.setitimer(signal.ITIMER_REAL, 0.01)
                    raise KeyboardInterrupt
            else:
                with fileio.atomic_path(tmp_path / "out.stl") as path:
                    path.write_text("solid\n")
                    fileio.note_interrupt(signal.SIGINT)
                    signal.setitimer(signal.ITIMER_REAL, 0.01)
                    raise KeyboardInterrupt
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        fileio.clear_interrupt()
    assert list(tmp_path.iterdir()) == []


# -- issue 23, item 1: no command writes over one of its inputs ---------------------------------


@pytest.fixture
def part(tmp_path: Path) -> Path:
    """A CAD file in millimetres (a 40 x 20 x 10 mm block), as a user's STL."""
    trimesh = pytest.importorskip("trimesh")
    path = tmp_path / "F.stl"
    trimesh.creation.box((40.0, 20.0, 10.0)).export(path)
    return path


def _aliases(path: Path) -> list[Path]:
    """``path`` itself, a symlink to it and a hard link to it (all the same file)."""
    link = path.with_name("link" + path.suffix)
    link.symlink_to(path)
    hard = path.with_name("hard" + path.suffix)
    os.link(path, hard)
    return [path, link, hard]


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_mesh_never_writes_over_its_input(capsys, part: Path, tmp_path: Path, force) -> None:
    """``rigidparts mesh meshbody F.stl --units mm -o F.stl`` would replace the user's
    millimetre file by the metre-scaled mesh: refused in one line naming the input, with or
    without --force (which replaces read-only outputs, not inputs)."""
    before = part.read_bytes()
    aliases = _aliases(part)
    for output in aliases:
        for source in aliases[:2]:  # the file, and the file through a symlink
            argv = ["mesh", "meshbody", source, "--units", "mm", "-o", output, *force]
            code, out, err = run(capsys, *argv)
            assert code == 2 and out == ""
            line = one_error(err)
            assert f"-o {output}: is the mesh file {source}" in line and "input" in line
        assert part.read_bytes() == before
    assert hidden_entries(tmp_path) == []


def test_view_never_writes_over_the_file_it_draws(capsys, part: Path, tmp_path: Path) -> None:
    picture = tmp_path / "F.png"
    os.link(part, picture)  # the CAD file, also known by a picture's name
    before = part.read_bytes()
    code, out, err = run(capsys, "view", "meshbody", part, "--units", "mm", "-o", picture)
    assert code == 2 and out == "" and "is the mesh file" in one_error(err)
    assert part.read_bytes() == before


MESH_MODEL = """\
[bodies.bracket]
shape = "mesh"
file = "robot_meshes/bracket.obj"
units = "mm"

[[joints]]
name = "hinge"
type = "revolute"
parent = "world"
child = "bracket"
axis = [0, 1, 0]
"""


@pytest.fixture
def mesh_model(tmp_path: Path) -> Path:
    """A model whose body is read from ``robot_meshes/bracket.obj`` (in mm): the folder an
    export to ``robot.urdf`` writes its meshes into."""
    trimesh = pytest.importorskip("trimesh")
    (tmp_path / "robot_meshes").mkdir()
    trimesh.creation.box((40.0, 20.0, 10.0)).export(tmp_path / "robot_meshes" / "bracket.obj")
    path = tmp_path / "robot.toml"
    path.write_text(MESH_MODEL, encoding="utf-8")
    return path


@pytest.mark.parametrize(("suffix", "fmt"), [(".urdf", "urdf"), (".sdf", "sdf"), (".xml", "mjcf")])
def test_export_never_replaces_a_file_its_model_reads(capsys, mesh_model, tmp_path, suffix, fmt):
    before = snapshot(tmp_path)
    for output in (tmp_path / f"robot{suffix}", tmp_path / "robot_meshes" / "bracket.obj"):
        code, out, err = run(capsys, "export", mesh_model, "-o", output, "--format", fmt,
                             "--force")  # fmt: skip
        assert code == 2 and out == ""
        line = one_error(err)
        assert "bodies.bracket" in line and "bracket.obj" in line
    assert snapshot(tmp_path) == before and hidden_entries(tmp_path) == []
    # elsewhere it is written, meshes in metres beside it
    code, _, err = run(capsys, "export", mesh_model, "-o", tmp_path / "out" / f"arm{suffix}")
    assert code == 0, err
    assert snapshot(tmp_path)["robot_meshes/bracket.obj"] == before["robot_meshes/bracket.obj"]


@pytest.mark.skipif(__import__("importlib").util.find_spec("mujoco") is None, reason="needs MuJoCo")
@pytest.mark.parametrize("option", ["-o", "--html"])
def test_simulate_never_writes_over_a_file_its_model_reads(capsys, mesh_model, tmp_path, option):
    mesh = tmp_path / "robot_meshes" / "bracket.obj"
    alias = tmp_path / ("bracket.csv" if option == "-o" else "bracket.html")
    os.link(mesh, alias)
    before = snapshot(tmp_path)
    code, out, err = run(capsys, "simulate", mesh_model, "--duration", "0.01", option, alias)
    assert code == 2 and out == ""
    assert f"{option} {alias}: is the file of bodies.bracket" in one_error(err)
    assert snapshot(tmp_path) == before


# -- issue 23, item 7: a symlinked output gets its meshes beside the file it points to ----------


@pytest.mark.parametrize("suffix", [".urdf", ".sdf", ".xml"])
def test_a_symlinked_output_gets_its_meshes_beside_its_target(capsys, model_file, tmp_path, suffix):
    """``-o links/alias.urdf`` -> ``real/robot.urdf``: the file written is the link's target,
    so its meshes go beside it, named after it (``real/robot_meshes``), and nothing but the
    link is in ``links/``; the file then loads from where it is."""
    real = tmp_path / "real" / f"robot{suffix}"
    real.parent.mkdir()
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "links" / f"alias{suffix}"
    link.parent.mkdir()
    link.symlink_to(os.path.relpath(real, link.parent))
    code, out, err = run(capsys, "export", model_file, "-o", link, "--sections", "8")
    assert code == 0, err
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert sorted(p.name for p in link.parent.iterdir()) == [link.name]
    meshes = real.parent / "robot_meshes"
    assert sorted(p.name for p in meshes.iterdir()) == ["bob.obj", "tip.obj"]
    assert f"in {meshes}" in out
    text = real.read_text(encoding="utf-8")
    named = [n for n in text.replace('"', " ").replace("<", " ").replace(">", " ").split()
             if n.endswith(".obj")]  # fmt: skip
    assert named and all((real.parent / n.removeprefix("file=")).is_file() for n in named)
    if suffix == ".xml" and __import__("importlib").util.find_spec("mujoco") is not None:
        import mujoco

        assert mujoco.MjModel.from_xml_path(str(real)).nbody == 4
    assert hidden_entries(tmp_path) == []


# -- issue 23, item 4: what a killed export left is removed by the next run ---------------------


def partials(folder: Path) -> list[str]:
    """Temporary files and staging folders of rigidparts in ``folder`` (by their mark)."""
    return sorted(p.name for p in folder.iterdir() if fileio.PARTIAL_MARK in p.name)


def test_a_killed_exports_staging_is_removed_by_the_next_run(tmp_path: Path) -> None:
    """SIGKILL cannot be caught: the staging folder of an export killed half way stays. The
    next export into that folder (a new process, started after the killed one died) removes
    it, and writes its own. The killed writer stages through the exporters' own
    ``atomic_files`` and kills itself in the middle of a mesh: no race with a timer."""
    model_file = tmp_path / "chain.toml"
    model_file.write_text(chain_model(5), encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    killed = (
        "import os, signal\n"
        "from rigidparts.fileio import atomic_files\n"
        f"with atomic_files({str(work / 'chain.urdf')!r}, 'chain_meshes') as (file, folder):\n"
        "    folder.mkdir()\n"
        "    (folder / 'link_1.obj').write_text('v 0 0 0\\n')\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    done = subprocess.run([PYTHON, "-c", killed], capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr
    left = partials(work)
    assert len(left) == 1 and left[0].startswith(".chain.urdf.rigidparts-partial.")
    assert not (work / "chain.urdf").exists()
    # Older than the next process by more than the tick (10 ms) its start time is known to:
    # a killed export's staging is, unless the next run starts within that tick.
    stale = time.time() - 60
    os.utime(work / left[0], (stale, stale))
    argv = [PYTHON, "-m", "rigidparts.commands", "export", str(model_file)]
    argv += ["-o", str(work / "chain.urdf"), "--sections", "8"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert partials(work) == [] and hidden_entries(work) == []
    assert sorted(p.name for p in work.iterdir()) == ["chain.urdf", "chain_meshes"]


def test_only_stale_partials_of_our_own_are_removed(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(fileio, "_CLEANED", set())
    mark = fileio.PARTIAL_MARK
    stale_folder = tmp_path / f".robot.urdf.{mark}.abcd_123.tmp"
    (stale_folder / "robot_meshes").mkdir(parents=True)
    (stale_folder / "robot_meshes" / "arm.obj").write_text("v 0 0 0\n", encoding="utf-8")
    stale_file = tmp_path / f".part.{mark}.k2j4x9ab.tmp.stl"
    stale_file.write_bytes(b"half")
    kept = [
        tmp_path / ".robot.urdf.abcd_123.tmp",  # no mark: not ours (an older rigidparts, or not)
        tmp_path / f"robot.urdf.{mark}.abcd_123.tmp",  # not hidden: not a name we give
        tmp_path / f".notes.{mark}.txt",  # not a name we give either
        tmp_path / f".a.{mark}.ABCD_123.tmp",  # tempfile's names are lower case
    ]
    for path in kept:
        path.write_text("mine", encoding="utf-8")
    hour_ago = time.time() - 3600
    for path in [stale_folder, stale_file, *kept]:
        os.utime(path, (hour_ago, hour_ago))
    young = tmp_path / f".young.urdf.{mark}.abcdefgh.tmp"  # made after this process started
    young.mkdir()
    linked = tmp_path / f".link.{mark}.abcdefgh.tmp"  # a symlink is never followed nor removed
    linked.symlink_to(stale_file)
    os.utime(linked, (hour_ago, hour_ago), follow_symlinks=False)
    removed = fileio.remove_stale_partials(tmp_path)
    assert sorted(removed) == sorted([stale_folder, stale_file])
    assert all(p.exists() for p in [*kept, young]) and linked.is_symlink()
    assert not stale_folder.exists() and not stale_file.exists()


def test_a_partial_in_use_is_never_removed(tmp_path: Path, monkeypatch) -> None:
    """A writer holds a lock on its temporary while it writes (an flock, released when it
    ends, also by death): even counted as old, a locked one is left alone."""
    monkeypatch.setattr(fileio, "_process_start", lambda: time.time() + 3600)
    target = tmp_path / "robot.urdf"
    with fileio.atomic_files(target, "robot_meshes") as (staged_file, staged_folder):
        staged_folder.mkdir()
        (staged_folder / "a.obj").write_text("v 0 0 0\n", encoding="utf-8")
        staged_file.write_text("<robot/>", encoding="utf-8")
        monkeypatch.setattr(fileio, "_CLEANED", set())
        assert fileio.remove_stale_partials(tmp_path) == []
        assert staged_file.is_file() and partials(tmp_path) == [staged_file.parent.name]
        with fileio.atomic_path(tmp_path / "mesh.stl") as tmp:
            tmp.write_bytes(b"half")
            monkeypatch.setattr(fileio, "_CLEANED", set())
            assert fileio.remove_stale_partials(tmp_path) == [] and tmp.is_file()
    assert target.read_text(encoding="utf-8") == "<robot/>"
    assert (tmp_path / "mesh.stl").read_bytes() == b"half" and partials(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="chown needs root")
def test_another_users_partial_is_never_removed(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(fileio, "_CLEANED", set())
    theirs = tmp_path / f".robot.urdf.{fileio.PARTIAL_MARK}.abcdefgh.tmp"
    theirs.mkdir()
    os.chown(theirs, 4321, 4321)
    hour_ago = time.time() - 3600
    os.utime(theirs, (hour_ago, hour_ago))
    assert fileio.remove_stale_partials(tmp_path) == [] and theirs.is_dir()


def test_a_long_name_still_gets_a_temporary_file(tmp_path: Path) -> None:
    """The temporary name keeps at most 100 characters of the target's: a 250-character name
    (the usual limit is 255 bytes) is written, not refused for its temporary's length."""
    target = tmp_path / ("x" * 246 + ".stl")
    fileio.atomic_write(target, b"solid")
    assert target.read_bytes() == b"solid" and partials(tmp_path) == []
