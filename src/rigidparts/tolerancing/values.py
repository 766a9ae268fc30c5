"""Tolerances: the :class:`Tolerance` value type and its text form.

A tolerance is a nominal value and a distribution around it, in SI units:

- ``uniform`` (the default): every value in ``[nominal - minus, nominal + plus]`` equally
  likely (mean ``nominal + (plus - minus) / 2``, variance ``(minus + plus)^2 / 12``);
- ``normal``: ``N(nominal, sigma^2)``, not truncated; its band ``minus = plus = 3 sigma`` is
  the range a process holds at Cp = 1 (99.73 % of the parts) and is what the validity checks
  of :func:`check_band` read.

Text (:func:`parse_tolerance`; the nominal value, band and sigma each a quantity that
:func:`rigidparts.units.to_si` reads, so pint stays the authority on units, or a percentage of
the nominal value)::

    "0.4 m +- 0.1 mm"            uniform in [0.3999, 0.4001] m   (also "±", "+/-")
    "7860 kg/m^3 +- 1 %"          uniform, band 1 % of the nominal value
    "1 m +0.2 mm -0.1 mm"         asymmetric uniform in [0.9999, 1.0002] m
    "0.4 m +- 0.1 mm uniform"     the same as without the word
    "0.4 m +- 0.09 mm normal"     normal, the band is 3 sigma: sigma = 0.03 mm
    "0.4 m sigma 0.03 mm"         normal with the stated sigma (the band is 3 sigma)

A text without a tolerance (``"0.4 m"``, ``0.4``) is an exact value, not a tolerance.
"""

from __future__ import annotations

import decimal
import math
import numbers
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ParameterError
from ..units import to_si

__all__ = ["DISTRIBUTIONS", "Tolerance", "check_band", "is_tolerance_text", "parse_tolerance"]

#: The distributions a tolerance may have.
DISTRIBUTIONS = ("uniform", "normal")

#: Symmetric band separators, longest first.
_SYMMETRIC = re.compile(r"\s*(?:\+/-|\+-|±)\s*")
#: ``NOMINAL +PLUS -MINUS`` (whitespace before each sign: ``1e-3 m`` keeps its exponent).
_ASYMMETRIC = re.compile(r"^(?P<nominal>.*?\S)\s+\+\s*(?P<plus>.*?\S)\s+-\s*(?P<minus>.*\S)\s*$")
#: ``NOMINAL sigma S``.
_SIGMA = re.compile(r"^(?P<nominal>.*?\S)\s+(?:sigma|σ)\s+(?P<sigma>.*\S)\s*$", re.IGNORECASE)
_WORD = re.compile(r"^[A-Za-z_]+$")

SYNTAX = (
    "write NOMINAL +- BAND [uniform|normal] (also ± or +/-), NOMINAL +PLUS -MINUS, or "
    "NOMINAL sigma SIGMA; the band may be a percentage: '0.4 m +- 0.1 mm', "
    "'7860 kg/m^3 +- 1 %', '1 m +0.2 mm -0.1 mm', '0.4 m sigma 0.03 mm'"
)


@dataclass(frozen=True)
class Tolerance:
    """A toleranced value (SI floats): ``nominal``, the band ``minus`` below and ``plus`` above
    it (both >= 0) and the ``distribution`` (``"uniform"`` or ``"normal"``, module docstring).
    For ``"normal"``, ``minus == plus`` is 3 sigma: ``sigma`` defaults to ``minus / 3`` and,
    when given, must agree with the band (so the band's validity checks always see 3 sigma);
    :meth:`normal` builds one from sigma. Any real number is accepted (``np.float32``,
    ``Fraction``, ``Decimal``) and stored as a float.

    >>> Tolerance(0.4, 1e-4, 1e-4)                 # 0.4 m +- 0.1 mm, uniform
    >>> Tolerance.normal(0.4, 3e-5)                # sigma 0.03 mm
    """

    nominal: float
    minus: float
    plus: float
    distribution: str = "uniform"
    #: Standard deviation of a normal tolerance (default ``minus / 3``); None for uniform.
    sigma: float | None = None

    def __post_init__(self) -> None:
        for name in ("nominal", "minus", "plus", "sigma"):
            value = getattr(self, name)
            if name == "sigma" and value is None:
                continue
            # Any real number (np.float32, Fraction, Decimal...) is taken as its float.
            if isinstance(value, bool | np.bool_) or not isinstance(
                value, numbers.Real | decimal.Decimal
            ):
                raise ParameterError(name, value, "must be a number (SI units)")
            object.__setattr__(self, name, float(value))
        if not math.isfinite(self.nominal):
            raise ParameterError("nominal", self.nominal, "must be finite")
        for name in ("minus", "plus"):
            value = getattr(self, name)
            if not 0.0 <= value < math.inf:
                raise ParameterError(name, value, "must be non-negative and finite (the band)")
        if self.distribution not in DISTRIBUTIONS:
            raise ParameterError("distribution", self.distribution, _unknown_distribution_rule())
        if self.distribution == "normal":
            if self.minus != self.plus:
                raise ParameterError(
                    "plus", self.plus, f"must equal minus={self.minus!r} for a normal "
                    "distribution (the band is 3 sigma each way)",
                )  # fmt: skip
            # One rule: the band is 3 sigma. A sigma given with the band must agree with it (a
            # sigma wider than its band would slip past the band's validity check).
            sigma = self.minus / 3.0 if self.sigma is None else self.sigma
            if not 0.0 <= sigma < math.inf:
                raise ParameterError("sigma", sigma, "must be non-negative and finite")
            if not math.isclose(3.0 * sigma, self.minus, rel_tol=1e-12, abs_tol=0.0):
                raise ParameterError(
                    "sigma", sigma, f"must be a third of the band (minus = plus = {self.minus!r} "
                    "= 3 sigma for a normal tolerance); Tolerance.normal(nominal, sigma) builds "
                    "one from sigma",
                )  # fmt: skip
            object.__setattr__(self, "sigma", sigma)
        elif self.sigma is not None:
            raise ParameterError("sigma", self.sigma, "is given only for a normal distribution")

    @classmethod
    def normal(cls, nominal: float, sigma: float) -> Tolerance:
        """``N(nominal, sigma^2)``: band ``minus = plus = 3 sigma``."""
        if not isinstance(sigma, bool | np.bool_) and isinstance(
            sigma, numbers.Real | decimal.Decimal
        ):
            sigma = float(sigma)
            return cls(nominal, 3.0 * sigma, 3.0 * sigma, "normal", sigma)
        return cls(nominal, 0.0, 0.0, "normal", sigma)  # (the constructor names the bad sigma)

    @property
    def low(self) -> float:
        """The lower end of the band: ``nominal - minus``."""
        return self.nominal - self.minus

    @property
    def high(self) -> float:
        """The upper end of the band: ``nominal + plus``."""
        return self.nominal + self.plus

    @property
    def mean(self) -> float:
        """E[X]: ``nominal + (plus - minus) / 2`` (uniform), ``nominal`` (normal)."""
        if self.distribution == "normal":
            return self.nominal
        return self.nominal + (self.plus - self.minus) / 2.0

    @property
    def variance(self) -> float:
        """Var[X]: ``(minus + plus)^2 / 12`` (uniform), ``sigma^2`` (normal)."""
        if self.distribution == "normal":
            assert self.sigma is not None
            return self.sigma * self.sigma
        width = self.minus + self.plus
        return width * width / 12.0

    def __str__(self) -> str:
        if self.distribution == "normal":
            return f"{self.nominal!r} sigma {self.sigma!r}"
        if self.minus == self.plus:
            return f"{self.nominal!r} +- {self.plus!r}"
        return f"{self.nominal!r} +{self.plus!r} -{self.minus!r}"


def _unknown_distribution_rule() -> str:
    return f"is an unknown distribution: must be one of {', '.join(map(repr, DISTRIBUTIONS))}"


def is_tolerance_text(value: Any) -> bool:
    """True when ``value`` is a string with a tolerance in it (a band or a sigma)."""
    if not isinstance(value, str):
        return False
    return bool(
        _SYMMETRIC.search(value) or _ASYMMETRIC.match(value.strip()) or _SIGMA.match(value.strip())
    )


def _amount(name: str, text: str, kind: Any, nominal: float, whole: str) -> float:
    """A band or sigma: a quantity of ``kind`` or a percentage of ``|nominal|``."""
    text = text.strip()
    if text.endswith("%"):
        number = text[:-1].strip()
        try:
            return float(number) * abs(nominal) / 100.0
        except ValueError:
            raise ParameterError(
                name, whole, f"has a percentage that is not a number ({text!r}); {SYNTAX}"
            ) from None
    try:
        return to_si(name, text, kind)
    except ParameterError as exc:
        raise ParameterError(name, whole, f"{exc.rule} (in {text!r}); {SYNTAX}") from None


def parse_tolerance(name: str, text: str, kind: Any = "length") -> Tolerance:
    """The :class:`Tolerance` of ``text`` (module docstring) for parameter ``name`` of
    ``kind`` (a :data:`rigidparts.units.Kind`: ``"length"``, ``"density"``, ``"mass"``,
    ``"angle"``). ParameterError naming ``name`` for text that is not a tolerance, an unknown
    distribution or a band of the wrong dimension."""
    whole = text
    text = text.strip()
    distribution = "uniform"
    sigma_form = _SIGMA.match(text)
    if sigma_form is not None:
        nominal = _nominal(name, sigma_form["nominal"], kind, whole)
        sigma = _amount(name, sigma_form["sigma"], kind, nominal, whole)
        return _build(name, whole, lambda: Tolerance.normal(nominal, sigma))

    words = text.split()
    if len(words) > 1 and _WORD.match(words[-1]) and words[-1].lower() in DISTRIBUTIONS:
        distribution = words[-1].lower()
        text = text[: text.rfind(words[-1])].rstrip()

    parts = _SYMMETRIC.split(text)
    if len(parts) == 2:
        nominal = _nominal(name, parts[0], kind, whole)
        band = _band(name, parts[1], kind, nominal, whole)
        return _build(name, whole, lambda: Tolerance(nominal, band, band, distribution))
    if len(parts) > 2:
        raise ParameterError(name, whole, f"has more than one '+-'; {SYNTAX}")
    asymmetric = _ASYMMETRIC.match(text)
    if asymmetric is None:
        raise ParameterError(name, whole, f"is not a tolerance; {SYNTAX}")
    if distribution == "normal":
        raise ParameterError(
            name, whole, "a normal distribution is symmetric: give NOMINAL +- BAND normal (the "
            "band is 3 sigma) or NOMINAL sigma SIGMA",
        )  # fmt: skip
    nominal = _nominal(name, asymmetric["nominal"], kind, whole)
    plus = _band(name, asymmetric["plus"], kind, nominal, whole)
    minus = _band(name, asymmetric["minus"], kind, nominal, whole)
    return _build(name, whole, lambda: Tolerance(nominal, minus, plus, distribution))


def _nominal(name: str, text: str, kind: Any, whole: str) -> float:
    try:
        return to_si(name, text.strip(), kind)
    except ParameterError as exc:
        raise ParameterError(
            name, whole, f"has a nominal value that {exc.rule} (in {text.strip()!r}); {SYNTAX}"
        ) from None


def _band(name: str, text: str, kind: Any, nominal: float, whole: str) -> float:
    """A band; a trailing word that is not a distribution is named as one."""
    try:
        return _amount(name, text, kind, nominal, whole)
    except ParameterError:
        words = text.split()
        if len(words) > 1 and _WORD.match(words[-1]) and not _is_unit(words[-1]):
            try:
                _amount(name, " ".join(words[:-1]), kind, nominal, whole)
            except ParameterError:
                pass
            else:
                raise ParameterError(
                    name, whole, f"{words[-1]!r} {_unknown_distribution_rule()}"
                ) from None
        raise


def _is_unit(word: str) -> bool:
    """Whether pint knows ``word`` as a unit (``"kg"``: a wrong dimension, not a
    distribution)."""
    from ..units import registry

    try:
        return word in registry()
    except Exception:  # pint's own parsing errors: not a unit
        return False


def _build(name: str, whole: str, make: Any) -> Tolerance:
    """``make()``, its errors (a negative band) named after the parameter."""
    try:
        tolerance: Tolerance = make()
    except ParameterError as exc:
        raise ParameterError(name, whole, f"{exc.parameter} {exc.rule}") from None
    return tolerance


def check_band(name: str, given: Any, tolerance: Tolerance, sign_rule: str | None) -> None:
    """ParameterError naming ``name`` when the band reaches values a parameter with the rule
    ``sign_rule`` (its "must be positive ..." / "must be non-negative ..." rule, or None) never
    takes: a low end ``nominal - minus`` (3 sigma for a normal tolerance) that is <= 0 for a
    positive parameter or < 0 for a non-negative one, or a band end that is not finite."""
    if not (math.isfinite(tolerance.low) and math.isfinite(tolerance.high)):
        raise ParameterError(name, given, "has a band reaching beyond float64 (not finite)")
    if sign_rule is None:
        return
    low = tolerance.low
    positive = sign_rule.startswith("must be positive")
    if (positive and low <= 0.0) or (not positive and low < 0.0):
        spread = "3 sigma" if tolerance.distribution == "normal" else "the band"
        raise ParameterError(
            name,
            given,
            f"{spread} is wider than the value: it reaches {low!r} but {name} {sign_rule}",
        )
