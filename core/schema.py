"""OpenAPI: every operation documents the error answers every endpoint can give, with their one body.

Views document their success answers (and the errors special to them); the errors that any request can
meet (a malformed request, no or bad credentials, no permission, nothing at that id, a body too large,
throttling, a busy or unreachable database) are the same everywhere, so they are added here once, after the
schema is generated.
"""

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string"},
                "message": {"type": "string"},
                "fields": {"type": "object", "additionalProperties": True},
            },
        }
    },
}
COMMON_ERRORS = {
    "400": "The request is malformed: a field, query parameter or body that is not valid.",
    "401": "No credentials, or a revoked or wrong token.",
    "403": "Signed in, but not allowed to do this.",
    "404": "Nothing at this address, or not visible to you.",
    "405": "This method is not allowed here.",
    "413": "The request body is too large.",
    "429": "Too many requests: wait the seconds in the Retry-After header.",
    "503": (
        "The database is busy or cannot be reached (nothing was saved), or the service's cache cannot be reached "
        "(the request was not carried out): retry after the seconds in Retry-After."
    ),
}


def add_common_errors(result: dict, generator, request, public: bool) -> dict:
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components.setdefault("Error", ERROR_SCHEMA)
    reference = {"$ref": "#/components/schemas/Error"}
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for status, description in COMMON_ERRORS.items():  # a wrong token is refused even on public ones
                operation["responses"].setdefault(
                    status, {"description": description, "content": {"application/json": {"schema": reference}}}
                )
            if _answers_csv_on_request(operation):  # ?format=csv: its errors are a CSV with one `error` cell
                for status, answer in operation["responses"].items():
                    if status[0] in "45":
                        content = answer.setdefault("content", {})
                        content.setdefault("application/json", {"schema": reference})
                        content.setdefault("text/csv", {"schema": {"type": "string"}})
    return result


def _answers_csv_on_request(operation: dict) -> bool:
    return any(
        parameter.get("name") == "format" and "csv" in parameter.get("schema", {}).get("enum", [])
        for parameter in operation.get("parameters", [])
    )


# No text column can hold a NUL character: the API refuses it in every body and query parameter (400).
NO_NUL = r"^[^\x00]*$"


def _forbid_nul(schema: dict) -> None:
    if not isinstance(schema, dict):
        return
    if schema.get("type") == "string" and not ({"enum", "format", "pattern"} & set(schema)):
        schema["pattern"] = NO_NUL
    for part in schema.get("properties", {}).values():
        _forbid_nul(part)
    for key in ("items", "additionalProperties"):  # (keys of a mapping: OpenAPI 3.0 has no propertyNames)
        _forbid_nul(schema.get(key))


def requests_as_checked(result: dict, generator, request, public: bool) -> dict:
    """drf-spectacular postprocessing hook: request bodies and text query parameters say they hold no NUL,
    and a request body names only its fields (the API ignores others, but checks every text for NUL)."""
    for name, schema in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request"):  # COMPONENT_SPLIT_REQUEST: the request side of each serializer
            _forbid_nul(schema)
            if "properties" in schema:
                schema.setdefault("additionalProperties", False)
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                if parameter.get("in") == "query":
                    _forbid_nul(parameter.get("schema", {}))
    return result
