"""Clear errors where tracebacks or wrong words were (issue 14, items 11 and 13):

- numbers beyond float64 (``10**400``, a 400-digit integer) are a ParameterError (a
  ValueError), in Python, on the command line and in a model file, never an OverflowError;
- a model file nested 5000 deep is a ModelError; one with a UTF-8 byte-order mark loads;
- messages show plain numbers (no numpy reprs), long integers shortened, "an angle";
- ``--length -inf`` is a value, not an option; ``1,5`` is not a number (pint would read 15).
"""

from __future__ import annotations

import numpy as np
import pytest

import rigidparts as rp
from rigidparts.commands import main
from rigidparts.errors import ModelError, ParameterError
from rigidparts.units import to_si

HUGE = 10**400
DIGITS_400 = "9" * 400


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_error(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    return lines[0]


# -- numbers beyond float64 ------------------------------------------------------------------


@pytest.mark.parametrize("value", [HUGE, -HUGE, "10**400 m", "1e-3 * 10**400 km", int(DIGITS_400)])
def test_huge_numbers_are_a_parameter_error(value) -> None:
    with pytest.raises(ParameterError, match=r"^length=.*too large") as info:
        rp.Box(length=value)
    assert isinstance(info.value, ValueError)
    assert len(str(info.value)) < 200  # the number is shortened


@pytest.mark.parametrize("kind", ["length", "density", "mass", "time", "angle"])
def test_to_si_refuses_huge_integers_of_every_kind(kind: str) -> None:
    with pytest.raises(ParameterError, match="too large"):
        to_si("x", HUGE, kind)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["10**400 m", DIGITS_400, f"{DIGITS_400} mm"])
def test_huge_numbers_on_the_command_line(capsys, text: str) -> None:
    code, out, err = run(capsys, "box", "--length", text)
    assert code == 2 and out == ""
    line = one_error(err)
    assert "length=" in line and len(line) < 250


def test_huge_integer_in_a_model_file(tmp_path, capsys) -> None:
    path = tmp_path / "huge.toml"
    path.write_text(
        f'[bodies.arm]\nshape = "box"\nlength = {DIGITS_400}\n\n'
        '[[joints]]\nname = "j"\ntype = "revolute"\nparent = "world"\nchild = "arm.frame_a"\n'
        "axis = [0, 1, 0]\n",
        encoding="utf-8",
    )
    with pytest.raises(ModelError, match=r"huge.toml:3: bodies.arm.length=9\.9999e\+399") as info:
        rp.load_model(path)
    assert "400-digit integer" in str(info.value) and len(str(info.value)) < 300
    code, _, err = run(capsys, "export", path, "-o", tmp_path / "x.urdf")
    assert code == 2 and "400-digit integer" in one_error(err)


# -- model files: nesting, byte-order mark ------------------------------------------------------


def test_a_deeply_nested_model_file_is_a_model_error(tmp_path, capsys) -> None:
    path = tmp_path / "deep.toml"
    path.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(ModelError, match="nested too deeply"):
        rp.load_model(path)
    code, _, err = run(capsys, "export", path, "-o", tmp_path / "x.urdf")
    assert code == 2 and "nested too deeply" in one_error(err)


def test_a_byte_order_mark_is_accepted(tmp_path) -> None:
    text = (
        '[bodies.arm]\nshape = "box"\nlength = "0.5 m"\n\n'
        '[[joints]]\nname = "j"\ntype = "revolute"\nparent = "world"\nchild = "arm.frame_a"\n'
        "axis = [0, 1, 0]\n"
    )
    plain = tmp_path / "plain.toml"
    plain.write_text(text, encoding="utf-8")
    marked = tmp_path / "plain_bom.toml"
    marked.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    a, b = rp.load_model(plain), rp.load_model(marked)
    assert a.bodies["arm"].to_dict() == b.bodies["arm"].to_dict()
    # and the line numbers of errors are unchanged by the mark
    marked.write_bytes(b"\xef\xbb\xbf" + text.replace('"0.5 m"', '"0.5 kg"').encode("utf-8"))
    with pytest.raises(ModelError, match=r"plain_bom.toml:3: bodies.arm.length"):
        rp.load_model(marked)


# -- what messages show ---------------------------------------------------------------------


def test_no_numpy_reprs_in_messages() -> None:
    cases = [
        lambda: rp.MassProperties(np.float64(-1.0), np.zeros(3), np.eye(3)),
        lambda: rp.MassProperties(1.0, np.zeros(3), np.diag(np.array([1.0, 1.0, 3.0]))),
        lambda: rp.Box(length=np.float64(-1.0)),
        lambda: rp.Box(axis=np.zeros(3)),
        lambda: rp.Cone(radius_a=np.float32(-2.0)),
    ]
    for case in cases:
        with pytest.raises(ParameterError) as info:
            case()
        message = str(info.value)
        assert "np." not in message and "array(" not in message, message
        assert "\n" not in message


def test_parameter_error_shows_plain_values() -> None:
    assert str(ParameterError("x", np.float64(1.5), "rule")) == "x=1.5: rule"
    assert str(ParameterError("x", np.array([1.0, 2.0]), "rule")) == "x=[1.0, 2.0]: rule"
    assert str(ParameterError("x", np.int64(3), "rule")) == "x=3: rule"
    assert str(ParameterError("x", 10**300, "rule")) == "x=1.0000e+300 (a 301-digit integer): rule"
    assert str(ParameterError("x", -(10**25) - 7, "r")) == "x=-1.0000e+25 (a 26-digit integer): r"
    assert str(ParameterError("x", 12345678901234567890, "r")) == "x=12345678901234567890: r"
    assert "bits" in str(ParameterError("x", 10**5000, "rule"))


def test_an_angle_not_a_angle(capsys) -> None:
    with pytest.raises(ParameterError, match="expected an angle") as info:
        rp.Disk(extra_frames=[(0.2, "3 m")])
    assert "a angle" not in str(info.value)
    with pytest.raises(ParameterError, match="must be an angle, not a boolean"):
        to_si("twist", True, "angle")
    code, _, err = run(capsys, "disk", "--extra-frame", "0.2,3m")
    assert code == 2 and "expected an angle" in one_error(err)


@pytest.mark.parametrize("text", ["-inf", "-Inf", "-infinity", "-nan", "-1e3", "-.5"])
def test_negative_values_are_values(capsys, text: str) -> None:
    code, _, err = run(capsys, "box", "--length", text)
    line = one_error(err)
    assert code == 2 and line.startswith("error: length=") and "positive" in line
    assert "expected one argument" not in line


def test_negative_values_still_work(capsys) -> None:
    code, out, err = run(capsys, "cone", "--axis", "-1,0,0", "--extra-frame", "-0.5", "--json")
    assert code == 0 and err == "" and '"frame_c1"' in out


@pytest.mark.parametrize("text", ["1,5", "1,5 m", "1 5", "1.5.2", "0,25 mm"])
def test_text_pint_would_misread_is_not_a_number(capsys, text: str) -> None:
    """pint reads "1,5" as 15 and "1.5.2" as 0.3: refused, not silently wrong."""
    with pytest.raises(ParameterError, match="is not a number"):
        rp.Box(length=text)
    code, _, err = run(capsys, "box", "--length", text)
    line = one_error(err)
    assert code == 2 and "is not a number" in line and "dimensionless" not in line


def test_text_with_units_still_reads() -> None:
    assert to_si("length", "2 * 3 mm") == pytest.approx(0.006, rel=1e-15)
    assert to_si("length", "1e-3 m") == 1e-3
    assert to_si("length", " 250 mm ") == pytest.approx(0.25, rel=1e-15)
