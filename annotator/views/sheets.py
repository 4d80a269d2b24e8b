"""The spreadsheet import wizard: upload -> map columns -> review labels -> confirm.

The wizard's state (where the uploaded files are stored and the choices so far) lives in the session; the
files are kept under MEDIA_ROOT/imports/sheets/, under names the server chose, until the wizard completes
(a periodic clean-up deletes those of abandoned wizards). An upload is limited in size while it arrives, and
its files are read once by a job in a worker (a "Spreadsheet reading" ImportJob), never in a request: the
steps use what it read, and show the job (waiting, not queued, failed, with Retry and Cancel) until then.
"""

from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.text import get_valid_filename
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods

from annotator.forms.sheets import SheetsColumnsForm, SheetsLabelsForm, SheetsUploadForm
from annotator.importers.archives import format_bytes
from annotator.jobs import JobNotQueuedError
from annotator.models import ImportJob
from annotator.selectors.imports import import_job_get, import_jobs_actable
from annotator.services.sheets_import import (
    SheetsImportError,
    SheetsImportRequest,
    column_map_parse,
    mapping_from_rows,
    mapping_rows,
    sheets_import,
    sheets_import_dimensions,
    sheets_import_plan,
)
from annotator.services.sheets_import.uploads import (
    sheets_upload_path,
    sheets_upload_read_start,
    sheets_upload_sheets,
    sheets_uploads_clean,
    sheets_uploads_delete,
    sheets_uploads_store,
)
from core.errors import NotFoundError, PermissionDeniedError
from core.permissions import can_manage_imports

SESSION_KEY = "sheets_import"
WARNINGS_SHOWN = 20


def _require_rights(request: HttpRequest) -> None:
    if not can_manage_imports(request.user):
        raise PermissionDenied("Only study owners can import studies from spreadsheets.")


def _state(request: HttpRequest, *, needs: str) -> dict | None:
    state = request.session.get(SESSION_KEY)
    return state if state and needs in state else None


def _paths(state: dict) -> tuple[Path, ...]:
    return tuple(Path(sheets_upload_path(stored)) for stored, _ in state["files"])


def _read_sheets(state: dict):
    """The sheets the reading job found, or None while it has not; SheetsImportError when unreadable."""
    return sheets_upload_sheets(stored=[stored for stored, _ in state["files"]])


def _reading(request: HttpRequest, state: dict) -> HttpResponse:
    """The files are not read yet: the reading job's state, with Retry / Cancel where they apply."""
    try:
        job = import_job_get(user=request.user, pk=int(state.get("read_job") or 0), kind=ImportJob.Kind.SHEET_READ)
    except NotFoundError:
        job = None
    if job is None or job.status == ImportJob.Status.DONE:  # a session from before, or files deleted since
        messages.error(request, "The uploaded files are gone; upload them again.")
        return redirect("annotator:sheets_upload")
    if job.status == ImportJob.Status.CANCELLED:
        messages.error(request, "Reading the files was cancelled; upload them again to go on.")
        return redirect("annotator:sheets_upload")
    waiting = job.is_active and not job.is_stale
    context = {"step": 2, "job": job, "waiting": waiting, "actable": import_jobs_actable(user=request.user, jobs=[job])}
    return render(request, "annotator/sheets/reading.html", context, status=202 if waiting else 200)


def _display_names(paths: tuple[Path, ...], state: dict) -> dict[str, str]:
    return {str(p): name for p, (_, name) in zip(paths, state["files"], strict=True)}


class UploadSizeLimit(FileUploadHandler):
    """Stops reading an upload once its files exceed the limit, before they fill the disk."""

    def __init__(self, request, *, limit: int):
        super().__init__(request)
        self.limit = limit
        self.received = 0
        self.exceeded = False

    def receive_data_chunk(self, raw_data, start):
        self.received += len(raw_data)
        if self.received > self.limit:
            self.exceeded = True
            raise StopUpload(connection_reset=False)  # the rest of the body is read and dropped, not stored
        return raw_data

    def file_complete(self, file_size):
        return None  # the next handler builds the file


def _import_request(state: dict, sheets) -> SheetsImportRequest:
    paths = _paths(state)
    return SheetsImportRequest(
        paths=paths,
        study_name=state["study"],
        raters=tuple(state["raters"]),
        key=state["key"],
        columns=tuple(column_map_parse(text) for text in state["columns"]),
        final=state.get("final") or None,
        missing=frozenset(state.get("missing") or ()),
        label_mapping=mapping_from_rows(state["mapping"]) if state.get("mapping") is not None else None,
        accept_suggestions=state.get("mapping") is None,
        taxonomy=state.get("taxonomy") or None,
        add_unknown_labels=bool(state.get("add_unknown")),
        display_names=_display_names(paths, state),
        sheets=sheets,
    )


@csrf_exempt  # checked by _sheets_upload, once the size limit is in place (reading the token reads the body)
@login_required
@require_http_methods(["GET", "POST"])
def sheets_upload(request: HttpRequest) -> HttpResponse:
    _require_rights(request)
    limit = UploadSizeLimit(request, limit=settings.SHEETS_UPLOAD_MAX_BYTES)
    request.upload_handlers.insert(0, limit)
    return _sheets_upload(request, limit)


@csrf_protect
def _sheets_upload(request: HttpRequest, limit: UploadSizeLimit) -> HttpResponse:
    status, too_large = 200, ""
    if request.method == "POST":
        form = SheetsUploadForm(request.POST, request.FILES)
        if limit.exceeded:
            form = SheetsUploadForm(initial={"study": request.POST.get("study", "")})
            too_large = (
                f"The files are larger than {format_bytes(limit.limit)} together, the most this page accepts; "
                "delete what is not part of the study from them, or import them with the import_sheets command."
            )
            status = 413
        elif form.is_valid():
            previous = request.session.get(SESSION_KEY)
            if previous and previous.get("files"):  # a wizard started again: its earlier files are not needed
                sheets_uploads_delete(stored=[stored for stored, _ in previous["files"]])
            sheets_uploads_clean()  # also without celery beat (the embedded default), abandoned uploads go
            taxonomy = form.cleaned_data["taxonomy"]
            files = sheets_uploads_store(uploads=form.cleaned_data["files"])
            try:
                job_id = sheets_upload_read_start(user=request.user, files=files).pk
            except JobNotQueuedError as exc:  # saved "not queued": the next step shows it, with Retry
                messages.error(request, exc.message)
                job_id = exc.job_id
            request.session[SESSION_KEY] = {
                "files": files,
                "read_job": job_id,
                "study": form.cleaned_data["study"].strip(),
                "taxonomy": taxonomy.slug if taxonomy else None,
            }
            return redirect("annotator:sheets_columns")
        else:
            status = 400
    else:
        form = SheetsUploadForm(initial={"study": request.GET.get("study", "")})
    context = {"form": form, "step": 1, "max_size": format_bytes(limit.limit), "too_large": too_large}
    return render(request, "annotator/sheets/upload.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def sheets_columns(request: HttpRequest) -> HttpResponse:
    _require_rights(request)
    state = _state(request, needs="files")
    if state is None:
        return redirect("annotator:sheets_upload")
    try:
        sheets = _read_sheets(state)
    except SheetsImportError as exc:
        messages.error(request, exc.message)
        return redirect("annotator:sheets_upload")
    if sheets is None:
        return _reading(request, state)
    headers = list(dict.fromkeys(h for sheet in sheets.values() for h in sheet.headers if h.strip()))
    dimensions = sheets_import_dimensions(study_name=state["study"], taxonomy=state["taxonomy"])
    if dimensions is None:  # a new taxonomy: any column can become a dimension
        dimensions = [(get_valid_filename(h).lower().replace("-", "_").strip("_.") or "column", h) for h in headers]
        dimensions = list(dict(dimensions).items())
    kwargs = {"sheet_names": list(sheets), "headers": headers, "dimensions": dimensions}
    status = 200
    if request.method == "POST":
        form = SheetsColumnsForm(request.POST, **kwargs)
        if form.is_valid():
            data = form.cleaned_data
            state.update(
                raters=data["raters"],
                final=data["final"] or None,
                key=data["key"],
                missing=[m.strip() for m in data["missing"].split(",") if m.strip()],
                columns=[f"{key}={data[name].strip()}" for key, name in form.dimension_fields if data[name].strip()],
            )
            state.pop("mapping", None)
            request.session[SESSION_KEY] = state
            return redirect("annotator:sheets_labels")
        status = 400
    else:
        form = SheetsColumnsForm(**kwargs)
    context = {"form": form, "sheets": sheets.values(), "headers": headers, "state": state, "step": 2}
    return render(request, "annotator/sheets/columns.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def sheets_labels(request: HttpRequest) -> HttpResponse:
    _require_rights(request)
    state = _state(request, needs="columns")
    if state is None:
        return redirect("annotator:sheets_upload")
    draft = {**state, "mapping": None, "add_unknown": True}  # every suggestion accepted, to show what stays unknown
    try:
        sheets = _read_sheets(state)
        if sheets is None:
            return redirect("annotator:sheets_columns")
        plan = sheets_import_plan(request=_import_request(draft, sheets))
    except SheetsImportError as exc:
        messages.error(request, exc.message)
        return redirect("annotator:sheets_columns")
    suggestions = [(key, s) for key, found in plan.suggestions.items() for s in found]
    status = 200
    if request.method == "POST":
        form = SheetsLabelsForm(request.POST, suggestions=suggestions)
        if form.is_valid():
            state["mapping"] = mapping_rows({(key, s.from_label): s.to_label for key, s in form.accepted()})
            state["add_unknown"] = form.cleaned_data["add_unknown_labels"]
            request.session[SESSION_KEY] = state
            return redirect("annotator:sheets_confirm")
        status = 400
    else:
        form = SheetsLabelsForm(suggestions=suggestions, initial={"add_unknown_labels": bool(state.get("add_unknown"))})
    blocking = [e for e in plan.errors if "fits no category" not in e]
    counts = [(dimension, found.most_common()) for dimension, found in plan.label_counts().items()]
    context = {"form": form, "plan": plan, "errors": blocking, "counts": counts, "step": 3}
    return render(request, "annotator/sheets/labels.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def sheets_confirm(request: HttpRequest) -> HttpResponse:
    _require_rights(request)
    state = _state(request, needs="mapping")
    if state is None:
        return redirect("annotator:sheets_upload")
    try:
        sheets = _read_sheets(state)
        if sheets is None:
            return redirect("annotator:sheets_columns")
        import_request = _import_request(state, sheets)
    except SheetsImportError as exc:
        messages.error(request, exc.message)
        return redirect("annotator:sheets_upload")
    status, errors = 200, []
    if request.method == "POST":
        try:
            result = sheets_import(request=import_request, actor=request.user)
        except PermissionDeniedError as exc:  # e.g. categories to add, by someone who does not maintain taxonomies
            errors, status = [exc.message], 403
        except SheetsImportError as exc:
            errors, status = [exc.summary, *exc.problems], 400
        else:
            del request.session[SESSION_KEY]
            sheets_uploads_delete(stored=[stored for stored, _ in state["files"]])
            messages.success(request, result.summary())
            return redirect("annotator:study_detail", pk=result.study.pk)
    try:
        plan = sheets_import_plan(request=import_request)
    except SheetsImportError as exc:
        messages.error(request, exc.message)
        return redirect("annotator:sheets_upload")
    context = {
        "plan": plan,
        "errors": errors or plan.errors,
        "warnings": plan.warnings[:WARNINGS_SHOWN],
        "more_warnings": max(0, len(plan.warnings) - WARNINGS_SHOWN),
        "state": state,
        "step": 4,
    }
    return render(request, "annotator/sheets/confirm.html", context, status=status)


urlpatterns = [
    path("studies/import-sheets/", sheets_upload, name="sheets_upload"),
    path("studies/import-sheets/columns/", sheets_columns, name="sheets_columns"),
    path("studies/import-sheets/labels/", sheets_labels, name="sheets_labels"),
    path("studies/import-sheets/confirm/", sheets_confirm, name="sheets_confirm"),
]
