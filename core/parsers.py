"""The API's body parser (JSON only) with bounds: size, number of keys, nesting, and text a database can hold.

This reads at most DATA_UPLOAD_MAX_MEMORY_SIZE (413 past it; core.api turns Django's own
RequestDataTooBig into the same answer), counts the keys of every JSON object as it is parsed
(400 past API_JSON_MAX_KEYS, so a body of a hundred thousand unknown keys is refused before any
serializer or service looks at it), answers 400 to a body nested deeper than Python's parser can follow,
and refuses text no database column can hold: NUL, and a surrogate code point without its pair (`"\ud800"`
is valid JSON, but no UTF-8 text; an error message quoting such a key could not even be sent).
"""

import re

from django.conf import settings
from rest_framework import exceptions, status
from rest_framework.parsers import JSONParser, get_encoding
from rest_framework.utils import json


class RequestTooLarge(exceptions.APIException):
    """413 (here, not in core.api: DRF imports this module while core.api imports DRF's views)."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "request_too_large"

    def __init__(self, limit: int):
        super().__init__(f"The request body is larger than {limit:,} bytes.")


class _TooManyKeys(Exception):
    pass


def read_bounded(stream) -> bytes:
    """The body, or RequestTooLarge once it passes DATA_UPLOAD_MAX_MEMORY_SIZE (never read further).

    DRF hands these parsers `request.body`, which Django has already checked against the declared
    length; this bound holds whatever stream a parser is given."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    raw = stream.read() if limit is None else stream.read(limit + 1)
    if limit is not None and len(raw) > limit:
        raise RequestTooLarge(limit)
    return raw


# JSON decodes an escaped surrogate pair into the one character it stands for: any surrogate left is unpaired.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _unstorable_text(value) -> str | None:
    """What is wrong with the first key or text of a parsed body that no database column can hold, else None."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found = _UNSTORABLE.search(item)
            if found:
                return "NUL characters" if found.group() == "\x00" else "unpaired surrogate code points"
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


class BoundedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        raw = read_bounded(stream)
        encoding = get_encoding(parser_context or {})
        limit = settings.API_JSON_MAX_KEYS
        seen = 0

        def count_keys(pairs: list) -> dict:
            nonlocal seen
            seen += len(pairs)
            if seen > limit:
                raise _TooManyKeys
            return dict(pairs)

        try:
            data = json.loads(
                raw.decode(encoding),
                object_pairs_hook=count_keys,
                parse_constant=json.strict_constant if self.strict else None,
            )
        except _TooManyKeys:
            raise exceptions.ParseError(f"The JSON body has more than {limit:,} keys.") from None
        except RecursionError:
            raise exceptions.ParseError("The JSON body is nested too deeply.") from None
        except ValueError as exc:  # UnicodeDecodeError included
            raise exceptions.ParseError(f"JSON parse error - {str(exc)[:200]}") from None
        unstorable = _unstorable_text(data)
        if unstorable:
            raise exceptions.ParseError(f"Text may not contain {unstorable}.")
        return data
