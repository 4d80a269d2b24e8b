"""OpenAPI: every operation documents the error answers every endpoint can give, with their one body.

Views document their success answers (and the errors special to them); the errors that any request can
meet (a malformed request, no or bad credentials, no permission, nothing at that id, a body too large,
throttling) are the same everywhere, so they are added here once, after the schema is generated.
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
    return result
