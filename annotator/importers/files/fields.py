"""One record (a JSON object or a CSV row as a dict) -> IssueRecord, with every problem found in it."""

import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from core.numbers import ascii_int

from ..records import CommentRecord, IssueRecord, RepositoryRef
from .shapes import NotANumber

TITLE_MAX = 1000
URL_MAX = 500
AUTHOR_MAX = 200
STATE_REASON_MAX = 30
COMMENT_KEY_MAX = 64
REPOSITORY_PART_MAX = 200  # host, owner and name columns
# Whole numbers are stored in 32-bit columns (issue numbers, comment counts).
INTEGER_MAX = 2_147_483_647
# Characters no URL may hold (and the database would refuse in text: NUL).
_URL_FORBIDDEN = re.compile(r"[\x00-\x20\x7f]")

# /<owner>/<name>/issues/<n> or /<owner>/<name>/pull/<n> (also pulls/ as some exports write it)
_ISSUE_PATH = re.compile(r"^/([^/]+)/([^/]+)/(issues|pull|pulls)/(\d+)(?:/.*)?$")
_API_ISSUE_PATH = re.compile(r"^/(?:api/v3/)?repos/([^/]+)/([^/]+)/(issues|pulls)/(\d+)$")
_LABEL_SPLIT = re.compile(r"[,;]")
# Keys GitHub adds as API hyperlinks: derivable from the repository and number, so not kept in raw.
_HYPERMEDIA = re.compile(r"^(?:url|.+_url)$")
# Keys copied into columns (or comment rows): keeping them in raw too would store them twice.
_MAPPED_KEYS = frozenset(
    {
        "title",
        "body",
        "comments",
        "comment_list",
        "_comments",
        "html_url",
        "url",
        "number",
        "state",
        "state_reason",
        "stateReason",
        "labels",
        "created_at",
        "createdAt",
        "updated_at",
        "updatedAt",
        "closed_at",
        "closedAt",
        "kind",
    }
)

T = TypeVar("T")


class FieldProblem(Exception):
    """A field of a record that cannot be used as it is."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


class InvalidRecord(Exception):
    """A record with one or more field problems (all of them, so a person can fix them at once)."""

    def __init__(self, problems: list[FieldProblem]):
        super().__init__("; ".join(p.message for p in problems))
        self.problems = problems


def record_from_mapping(obj: Any, *, repository: RepositoryRef | None = None) -> IssueRecord:
    """One JSON/CSV record -> IssueRecord. Raises InvalidRecord listing every field problem."""
    if not isinstance(obj, Mapping):
        raise InvalidRecord([FieldProblem("", f"expected an object with url and title, got {_type_name(obj)}")])
    problems: list[FieldProblem] = []

    def get(fn: Callable[..., T], *args: Any, default: T) -> T:
        try:
            return fn(*args)
        except FieldProblem as exc:
            problems.append(exc)
            return default

    url = get(_url, obj, default="")
    url_ref, url_kind, url_number = _parse_issue_url(url) if url else (None, None, None)
    title = get(_title, obj, default="")
    number = get(_integer, obj, "number", default=None)
    if number is None:
        number = url_number
    elif url_number is not None and number != url_number:
        problems.append(FieldProblem("number", f"is {number} but the URL points at #{url_number}"))
    comments = get(_comments, obj, default=None)
    comment_count = get(_comment_count, obj, comments, default=0)
    record = IssueRecord(
        url=url,
        title=title,
        repository=repository or url_ref,
        number=number,
        kind=_kind(obj, url_kind, number),
        body=get(_text, obj, "body", default=""),
        state=get(_state, obj, default=""),
        state_reason=get(_text, obj, "state_reason", "stateReason", default="").lower()[:STATE_REASON_MAX],
        author=get(_login, obj, "user", "author", default="")[:AUTHOR_MAX],
        labels=get(_labels, obj, default=[]),
        created=get(_date, obj, "created_at", "createdAt", "created", default=None),
        updated=get(_date, obj, "updated_at", "updatedAt", "updated", default=None),
        closed=get(_date, obj, "closed_at", "closedAt", "closed", default=None),
        comment_count=comment_count,
        comments=comments,
    )
    record.raw = get(_raw, obj, default={})
    if problems:
        raise InvalidRecord(problems)
    return record


def parse_repository_ref(text: str) -> RepositoryRef:
    """'owner/name' or a repository URL -> RepositoryRef; ValueError with a readable message otherwise."""
    value = text.strip().rstrip("/")
    host = "github.com"
    if "://" in value:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"'{text}' is not a repository: give owner/name, e.g. deepspeedai/DeepSpeed")
        host = _clean_host(parts.netloc)
        value = parts.path.strip("/")
    bits = value.removesuffix(".git").split("/")
    if len(bits) != 2 or not all(re.fullmatch(r"[A-Za-z0-9_.-]+", b) for b in bits):
        raise ValueError(f"'{text}' is not a repository: give owner/name, e.g. deepspeedai/DeepSpeed")
    return RepositoryRef(owner=bits[0], name=bits[1], host=host)


def _title(obj: Mapping) -> str:
    title = _text(obj, "title", required=True)
    if len(title) > TITLE_MAX:
        raise FieldProblem("title", f"is {len(title)} characters long; the limit is {TITLE_MAX}")
    return title


def _comment_count(obj: Mapping, comments: list[CommentRecord] | None) -> int:
    value = obj.get("comments")
    if isinstance(value, list) or value is None:
        return len(comments) if comments is not None else 0
    if isinstance(value, bool | NotANumber) or not isinstance(value, int | float | str):
        raise FieldProblem("comments", f"must be a count or a list of comments, got {_type_name(value)}")
    return _integer(obj, "comments") or 0


def _first(obj: Mapping, *keys: str) -> tuple[str, Any]:
    for key in keys:
        if key in obj and obj[key] is not None:
            return key, obj[key]
    return keys[0], None


def _clean(text: str) -> str:
    # PostgreSQL text holds neither NUL characters nor lone surrogates (from a JSON "\ud800").
    if "\x00" in text:
        text = text.replace("\x00", "")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def _text(obj: Mapping, *keys: str, required: bool = False) -> str:
    key, value = _first(obj, *keys)
    if value is None:
        if required:
            raise FieldProblem(key, "is missing")
        return ""
    if not isinstance(value, str):
        if isinstance(value, int | float) and not isinstance(value, bool) and not required:
            return str(value)
        raise FieldProblem(key, f"must be text, got {_type_name(value)}")
    value = _clean(value)
    if required and not value.strip():
        raise FieldProblem(key, "is empty")
    return value


def _url(obj: Mapping) -> str:
    key, value = _first(obj, "html_url", "url")
    if value is None:
        raise FieldProblem("url", "is missing (give 'url' or 'html_url')")
    if not isinstance(value, str):
        raise FieldProblem(key, f"must be text, got {_type_name(value)}")
    url = normalise_url(value)
    if url is None or _URL_FORBIDDEN.search(url) or not _encodable(url):
        raise FieldProblem(key, f"is not an http(s) URL: {_clean(value[:100])!r}")
    if len(url) > URL_MAX:
        raise FieldProblem(key, f"is {len(url)} characters long; the limit is {URL_MAX}")
    ref = issue_url_repository(url)
    if ref is not None and max(len(ref.host), len(ref.owner), len(ref.name)) > REPOSITORY_PART_MAX:
        raise FieldProblem(
            key, f"names a repository whose host, owner or name is over {REPOSITORY_PART_MAX} characters"
        )
    return url


def issue_url_repository(url: str) -> RepositoryRef | None:
    """The repository an issue's URL names (/<owner>/<name>/issues/<n>), None if it names none."""
    return _parse_issue_url(url)[0]


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def normalise_url(value: str) -> str | None:
    """The canonical spelling of a URL (https for GitHub, lower-case host, no fragment), None if not http(s)."""
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or " " in parts.netloc:
        return None
    host = _clean_host(parts.netloc)
    scheme = parts.scheme.lower()
    path = parts.path.rstrip("/") or ""
    api = _API_ISSUE_PATH.match(path) if host.startswith("api.") or "/api/v3/" in path else None
    if api:
        owner, name, section, number = api.groups()
        host = host.removeprefix("api.")
        path = f"/{owner}/{name}/{'pull' if section == 'pulls' else 'issues'}/{number}"
    if host == "github.com":
        scheme = "https"
        match = _ISSUE_PATH.match(path)
        if match:  # drop /files, /commits, ... tabs of a pull request page
            owner, name, section, number = match.groups()
            path = f"/{owner}/{name}/{'pull' if section != 'issues' else 'issues'}/{number}"
    return urlunsplit((scheme, host, path, parts.query, ""))


def _clean_host(netloc: str) -> str:
    host = netloc.lower().rsplit("@", 1)[-1]
    host = host.removesuffix(":443").removesuffix(":80")
    return host.removeprefix("www.")


def _parse_issue_url(url: str) -> tuple[RepositoryRef | None, str | None, int | None]:
    parts = urlsplit(url)
    match = _ISSUE_PATH.match(parts.path)
    if not match:
        return None, None, None
    owner, name, section, number = match.groups()
    return (
        RepositoryRef(owner=owner, name=name, host=parts.netloc),
        "issue" if section == "issues" else "pull",
        int(number),
    )


def _integer(obj: Mapping, key: str) -> int | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool):
        raise FieldProblem(key, f"must be a whole number, got {_type_name(value)}")
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and (digits := ascii_int(value.strip().lstrip("#"))) is not None:
        number = digits
    else:
        raise FieldProblem(key, f"must be a whole number, got {value!r}"[:200])
    if number < 0:
        raise FieldProblem(key, f"must not be negative, got {number}")
    if number > INTEGER_MAX:
        raise FieldProblem(key, f"is {number}; the largest number stored is {INTEGER_MAX}"[:200])
    return number


def _kind(obj: Mapping, url_kind: str | None, number: int | None) -> str:
    explicit = obj.get("kind")
    if isinstance(explicit, str) and explicit.lower() in ("issue", "pull", "post"):
        return explicit.lower()
    if obj.get("pull_request") or obj.get("isPullRequest") is True:
        return "pull"
    if url_kind:
        return url_kind
    return "issue" if number is not None else "post"


def _state(obj: Mapping) -> str:
    key, value = _first(obj, "state")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FieldProblem(key, f"must be text, got {_type_name(value)}")
    state = value.strip().lower()
    if state in ("open", "opened", "reopened"):
        return "open"
    if state in ("closed", "merged", "resolved", "answered"):
        return "closed"
    if state in ("", "unknown"):
        return ""
    raise FieldProblem(key, f"must be open or closed, got {value[:50]!r}")


def _login(obj: Mapping, *keys: str) -> str:
    key, value = _first(obj, *keys)
    if value is None:
        return ""
    if isinstance(value, str):
        return _clean(value)
    if isinstance(value, Mapping):
        login = value.get("login") or value.get("name") or ""
        if not isinstance(login, str):
            raise FieldProblem(f"{key}.login", f"must be text, got {_type_name(login)}")
        return _clean(login)
    raise FieldProblem(key, f"must be an object with a login or text, got {_type_name(value)}")


def _labels(obj: Mapping) -> list[str]:
    value = obj.get("labels")
    if value is None:
        return []
    if isinstance(value, str):
        return [part.strip() for part in _LABEL_SPLIT.split(value) if part.strip()]
    if not isinstance(value, list):
        raise FieldProblem("labels", f"must be a list of labels or text, got {_type_name(value)}")
    labels: list[str] = []
    for index, item in enumerate(value):
        name = item.get("name") if isinstance(item, Mapping) else item
        if not isinstance(name, str):
            raise FieldProblem(
                f"labels[{index}]", f"must be a label name or an object with a name, got {_type_name(item)}"
            )
        if name.strip() and name.strip() not in labels:
            labels.append(_clean(name.strip()))
    return labels


def parse_datetime(value: str) -> datetime | None:
    """ISO 8601 (with Z, an offset or none: UTC is assumed), or None if it is not a date."""
    text = value.strip()
    if not text:
        return None
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _date(obj: Mapping, *keys: str) -> datetime | None:
    key, value = _first(obj, *keys)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise FieldProblem(key, f"must be a date as text (ISO 8601), got {_type_name(value)}")
    parsed = parse_datetime(value)
    if parsed is None:
        raise FieldProblem(key, f"is not a date: {_clean(value[:50])!r} (expected ISO 8601, e.g. 2024-03-01T12:00:00Z)")
    try:
        parsed.astimezone(UTC)  # stored in UTC: year 1 with a positive offset falls before year 1
    except OverflowError:
        raise FieldProblem(key, f"is outside the dates that can be stored: {value[:50]!r}") from None
    return parsed


def _comments(obj: Mapping) -> list[CommentRecord] | None:
    key, value = _first(obj, "comment_list", "_comments", "comments")
    if not isinstance(value, list):
        return None
    comments: list[CommentRecord] = []
    seen: set[str] = set()
    for index, item in enumerate(value, start=1):
        where = f"{key}[{index - 1}]"
        if not isinstance(item, Mapping):
            raise FieldProblem(where, f"must be an object, got {_type_name(item)}")
        ident = item.get("id") if item.get("id") is not None else item.get("databaseId")
        plain = ident is not None and not isinstance(ident, bool | NotANumber | Mapping | list)
        comment_key = _clean(str(ident)) if plain else f"pos:{index}"
        if len(comment_key) > COMMENT_KEY_MAX or comment_key in seen:
            comment_key = f"pos:{index}"
        seen.add(comment_key)
        try:
            url_value = _first(item, "html_url", "url")[1]
            # A comment's URL keeps its fragment (#issuecomment-...): it is what points at the comment.
            url = url_value.strip() if isinstance(url_value, str) and normalise_url(url_value) else None
            comments.append(
                CommentRecord(
                    key=comment_key,
                    body=_text(item, "body"),
                    author=_login(item, "user", "author")[:AUTHOR_MAX],
                    created=_date(item, "created_at", "createdAt"),
                    updated=_date(item, "updated_at", "updatedAt"),
                    url=url if url and len(url) <= URL_MAX else "",
                    raw=_raw(item),
                )
            )
        except FieldProblem as exc:
            raise FieldProblem(f"{where}.{exc.field}", exc.message) from None
    return comments


def _raw(obj: Mapping) -> dict[str, Any]:
    """What the source said beyond the mapped columns, without API hyperlinks (derivable).

    Keys are cleaned like text (a database refuses NUL and lone surrogates in JSON keys too), and a
    value no database stores as JSON (NaN, Infinity, an overflowing number) is a problem of its field.
    """
    try:
        return {
            _clean(k): _raw_value(v, k) for k, v in obj.items() if k not in _MAPPED_KEYS and not _HYPERMEDIA.match(k)
        }
    except RecursionError:
        raise FieldProblem("", "is nested too deeply to store") from None


def _raw_value(value: Any, path: str) -> Any:
    if isinstance(value, str):
        return _clean(value)
    if isinstance(value, Mapping):
        return {_clean(str(k)): _raw_value(v, f"{path}.{k}") for k, v in value.items() if not _HYPERMEDIA.match(str(k))}
    if isinstance(value, list):
        return [_raw_value(v, f"{path}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, NotANumber):
        raise FieldProblem(_clean(path), f"is {value!r}, which is not a number JSON can store")
    return value


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, NotANumber):
        return repr(value)
    return {bool: "true/false", int: "a number", float: "a number", str: "text", list: "a list", dict: "an object"}.get(
        type(value), type(value).__name__
    )
