"""Argument checking against a tool's inputSchema, word for word as the
simulated base does it (tcpbase/simbase/schema.go), so a bad argument gets
the same isError message from either base."""

import math


def _name(path):
    return "arguments" if path == "" else "'%s'" % path


def _join(path, k):
    return k if path == "" else path + "." + k


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check(schema, v, path=""):
    """Returns a message naming the first problem, or "" when v conforms."""
    want = schema.get("type")
    if want == "object":
        if not isinstance(v, dict):
            return "%s must be an object" % _name(path)
        props = schema.get("properties") or {}
        for r in schema.get("required") or []:
            if r not in v:
                return "missing required argument %s" % _name(_join(path, r))
        for k in sorted(v, key=lambda s: s.encode("utf-8")):
            ps = props.get(k)
            if ps is None:
                if schema.get("additionalProperties") is False:
                    return "unknown argument %s" % _name(_join(path, k))
                continue
            msg = check(ps, v[k], _join(path, k))
            if msg:
                return msg
    elif want == "array":
        if not isinstance(v, list):
            return "%s must be an array" % _name(path)
        if "minItems" in schema and len(v) < schema["minItems"]:
            return "%s needs at least %d items" % (_name(path), schema["minItems"])
        if "items" in schema:
            for i, e in enumerate(v):
                msg = check(schema["items"], e, "%s[%d]" % (path, i))
                if msg:
                    return msg
    elif want == "string":
        if not isinstance(v, str):
            return "%s must be a string" % _name(path)
        if "enum" in schema and v not in schema["enum"]:
            return "%s must be one of %s" % (_name(path), ", ".join(schema["enum"]))
    elif want == "boolean":
        if not isinstance(v, bool):
            return "%s must be true or false" % _name(path)
    elif want in ("number", "integer"):
        if not _is_number(v) or math.isnan(v) or math.isinf(v):
            return "%s must be a number" % _name(path)
        if want == "integer" and v != math.trunc(v):
            return "%s must be a whole number" % _name(path)
        if "minimum" in schema and v < schema["minimum"]:
            return "%s must be at least %d" % (_name(path), schema["minimum"])
        if "maximum" in schema and v > schema["maximum"]:
            return "%s must be at most %d" % (_name(path), schema["maximum"])
        if "exclusiveMinimum" in schema and v <= schema["exclusiveMinimum"]:
            return "%s must be greater than %d" % (_name(path), schema["exclusiveMinimum"])
    return ""
