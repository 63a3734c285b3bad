"""JavaScript value semantics that Pi's session code relies on: property access, truthiness,
strict equality and ``new Date(x).getTime()``.

Pi's code runs on parsed JSON; reproducing its behaviour on odd lines (a number as an entry, a
``null`` message, a missing timestamp) needs these few rules in one place.
"""

from __future__ import annotations

import calendar
import math
import re
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from reference.primitives.jsonbytes import UNDEFINED

_MAX_TIME_MS: Final = 8.64e15
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
MAX_SAFE_INTEGER: Final = 2**53 - 1
#: ``String.prototype.trim`` whitespace: WhiteSpace and LineTerminator (BOM included, U+0085 not).
JS_WHITESPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_ISO_DATE_TIME: Final = re.compile(
    r"^(?P<year>[+-]\d{6}|\d{4})"
    r"(?:-(?P<month>\d{2})(?:-(?P<day>\d{2}))?)?"
    r"(?:[Tt ](?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:\.(?P<fraction>\d+))?)?"
    r"(?P<zone>[Zz]|[+-]\d{2}:\d{2})?)?$"
)


def get(value: Any, key: str) -> Any:
    """``value[key]`` for a parsed JSON value: ``UNDEFINED`` when absent or not an object."""
    if isinstance(value, dict):
        return value.get(key, UNDEFINED)
    return UNDEFINED


def truthy(value: Any) -> bool:
    """JavaScript truthiness of a parsed JSON value."""
    if value is None or value is UNDEFINED or value is False:
        return False
    if isinstance(value, bool):
        return True
    if isinstance(value, (int, float)):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


def trim(text: str) -> str:
    """``String.prototype.trim``: JavaScript's whitespace set, not Python's."""
    return text.strip(JS_WHITESPACE)


def typeof(value: Any) -> str:
    """``typeof`` of a parsed JSON value: ``null`` and arrays are ``object``, booleans never numbers."""
    if value is None:
        return "object"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "undefined" if value is UNDEFINED else "object"


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_integer(value: Any) -> bool:
    """``Number.isInteger``: a finite integral number (``True`` is not a number)."""
    if not is_number(value):
        return False
    return isinstance(value, int) or (math.isfinite(value) and float(value).is_integer())


def is_safe_integer(value: Any) -> bool:
    """``Number.isSafeInteger``: integral and at most 2^53-1 in magnitude."""
    return is_integer(value) and abs(value) <= MAX_SAFE_INTEGER


def nullish(value: Any) -> bool:
    """``value == null`` in JavaScript (null or undefined)."""
    return value is None or value is UNDEFINED


def strict_equal(left: Any, right: Any) -> bool:
    """``left === right``: primitives by value, objects and arrays by identity."""
    if isinstance(left, (dict, list)) or isinstance(right, (dict, list)):
        return left is right
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return float(left) == float(right)
    if left is UNDEFINED or right is UNDEFINED:
        return left is right
    return type(left) is type(right) and left == right


def map_key(value: Any) -> Any:
    """A hashable key with JavaScript ``Map`` identity (SameValueZero) for a parsed id.

    Objects and arrays never equal a key parsed from another line, so they get no key.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, (int, float)):
        number = float(value)
        return ("number", "NaN" if math.isnan(number) else number)
    if value is None:
        return ("null",)
    return None


def date_time_ms(value: Any) -> float | int:
    """``new Date(value).getTime()``; NaN where JavaScript gives NaN.

    Strings follow the ECMAScript date-time format that Pi writes (with V8's tolerance of a
    lower-case ``t``/``z``, a space separator and day overflow). A date-time without an offset
    is read as UTC (V8 uses the local zone; the oracle runs with ``TZ=UTC``). V8's other legacy
    formats are not reproduced and give NaN: Pi never writes them.
    """
    if value is None:
        return 0
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return _time_clip(float(value))
    if isinstance(value, str):
        return _parse_iso(value)
    return math.nan


def to_iso_string(ms: int) -> str:
    """``new Date(ms).toISOString()`` for years 0000-9999."""
    moment = _EPOCH + timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


def _time_clip(number: float) -> float | int:
    if not math.isfinite(number) or abs(number) > _MAX_TIME_MS:
        return math.nan
    return int(number)


def _parse_iso(text: str) -> float | int:
    match = _ISO_DATE_TIME.match(text)
    if not match:
        return math.nan
    parts = match.groupdict()
    year_text = parts["year"]
    if year_text == "-000000":
        return math.nan
    year = int(year_text)
    month = int(parts["month"] or 1)
    day = int(parts["day"] or 1)
    hour = int(parts["hour"] or 0)
    minute = int(parts["minute"] or 0)
    second = int(parts["second"] or 0)
    millis = int((parts["fraction"] or "0")[:3].ljust(3, "0"))
    if not (1 <= month <= 12 and 1 <= day <= 31 and minute <= 59 and second <= 59):
        return math.nan
    if hour > 24 or (hour == 24 and (minute or second or millis)):
        return math.nan
    days = _days_from_civil(year, month) + day - 1
    total = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
    zone = parts["zone"]
    if zone and zone not in "Zz":
        sign = 1 if zone[0] == "+" else -1
        total -= sign * (int(zone[1:3]) * 60 + int(zone[4:6])) * 60_000
    return _time_clip(float(total))


def _days_from_civil(year: int, month: int) -> int:
    """Days from 1970-01-01 to the first day of ``month`` in ``year`` (proleptic Gregorian)."""
    if 1 <= year <= 9999:
        return calendar.timegm((year, month, 1, 0, 0, 0)) // 86400
    # Outside datetime's range: shift by whole 400-year cycles (146097 days each).
    cycles, rest = divmod(year - 2000, 400)
    return cycles * 146097 + calendar.timegm((2000 + rest, month, 1, 0, 0, 0)) // 86400
