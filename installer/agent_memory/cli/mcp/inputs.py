"""A tool's input schema, made from its command's declaration: each parameter an MCP tool takes
(``declared.Arg``) becomes a property of the JSON type its kind reads, bounded as declared."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..declared import Arg, Kind, Param

# The date a DATE parameter reads, as JSON Schema (ECMA-262) writes it; the tool parses it.
_DATE = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"


def input_schema(params: Sequence[Param]) -> dict[str, Any]:
    """The JSON Schema of the arguments of a tool whose command declares ``params``."""
    taken = [(param, param.arg) for param in params if param.arg is not None]
    properties = {arg.name or param.name: _property(param, arg) for param, arg in taken}
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    required = [arg.name or param.name for param, arg in taken if param.required]
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return schema


def _property(param: Param, arg: Arg) -> dict[str, Any]:
    value = _value(param, arg)
    if not param.multiple or not param.flags:  # the rest of a line's words: one string
        return value
    array: dict[str, Any] = {"type": "array", "items": value}
    if arg.most is not None:
        array["maxItems"] = arg.most
    return array


def _value(param: Param, arg: Arg) -> dict[str, Any]:
    kind = param.kind
    if kind is Kind.FLAG:
        value: dict[str, Any] = {"type": "boolean"}
    elif kind is Kind.COUNT:
        value = {"type": "integer", "minimum": param.low}
    elif kind is Kind.DATE:
        value = {"type": "string", "pattern": _DATE}
    elif kind is Kind.CHOICE:
        value = {"type": "string", "enum": list(param.choices)}
    elif kind is Kind.TEXT:
        value = {"type": "string"}
    else:
        raise ValueError(f"{param.name}: {kind.value} is not taken over MCP")
    value.update(arg.bounds)
    if param.default is not None and not param.multiple:
        value["default"] = param.default
    return value
