"""Composition root: build everything from Settings, in one place."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from memwarden.logs import get_logger

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.audit.auditor import Auditor
    from memwarden.config import Settings
    from memwarden.embed.base import Embedder
    from memwarden.govern.redactor import Redactor
    from memwarden.ops.backup import BackupManager
    from memwarden.ops.options import OpsOptions
    from memwarden.settings_reader import HotSettings
import functools

from memwarden.errors import Conflict, MemwardenError, StorageError
from memwarden.intake import Intake
from memwarden.models import Caller
from memwarden.search.ranking import RankingWeights
from memwarden.search.tuning import Tuning
from memwarden.service import MemoryService
from memwarden.settings_reader import parse_optional_weight
from memwarden.store import open_store
from memwarden.store.base import MaintainableStore
from memwarden.text.analyzer import Analyzer

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.vault.mirror import VaultMirror


logger = get_logger(__name__)


def build_backups(settings: Settings | HotSettings) -> BackupManager | None:
    """Backups of the configured database into MEMWARDEN_BACKUP_DIR, keeping MEMWARDEN_BACKUP_KEEP;
    None when the database backend provides no backups."""
    from memwarden.ops.backup import BackupManager, backend_for

    backend = backend_for(settings.database_url())
    if backend is None:
        return None
    return BackupManager(backend, settings.backup_path(), keep=settings.backup_keep)


class _ReindexBar:
    """The ``ReindexProgress`` bar, made when a re-index first reports: the per-prompt paths,
    whose keyword index is up to date, never import progress.py."""

    def __init__(self) -> None:
        self.bar: Callable[[int, int], None] | None = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            from memwarden.progress import ReindexProgress

            self.bar = ReindexProgress()
        self.bar(done, total)


def build_service(
    settings: Settings | HotSettings,
    *,
    ops: bool = False,
    backups: BackupManager | None = None,
    progress: Callable[[int, int], None] | None = None,
    embeddings: bool = True,
    background: bool = True,
    embedder: Embedder | None = None,
    source: str = "unknown",
) -> MemoryService:
    """The service for these settings: store, analyzer, vector path and the default caller.

    Accepts the full ``Settings`` or the pydantic-free ``HotSettings`` of the per-prompt paths.
    ``ops=True`` (servers, health, backup, export/import commands; full ``Settings`` only) adds
    the backups and the purge grace period, which the per-prompt paths never need.

    The keyword index is brought up to date with the analyzer first (a migration or a change of
    MEMWARDEN_LANGUAGES means re-indexing); long runs draw a progress bar on stderr.
    ``embeddings=False`` builds a keyword-only service (the per-prompt paths: no numpy, no
    model, no embedder settings read). ``background=True`` (servers) loads the model in a thread
    once ``service.searcher.start_background()`` is called (the MCP lifespan does) or on first use, and
    answers degraded until it is warm; ``False`` (one-shot CLI commands) loads it on first use. ``embedder``
    replaces the configured provider (tests pass the fake one). ``source`` is the route of the
    default caller (``models.SOURCES``), which its writes record: the CLI passes ``cli``; servers
    mark each request's caller with its own route (mcp/calls.py, the dashboard's sessions).
    """
    vectors_on = embeddings and (embedder is not None or settings.embedder != "none")
    exact_max = settings.vector_exact_max if vectors_on else 150_000
    store = open_store(
        settings.database_url(),
        synchronous=settings.sqlite_synchronous,
        pg_pool_size=settings.pg_pool_size,
        vector_exact_max=exact_max,
    )
    vectors = None
    if vectors_on:
        from memwarden.embed.factory import open_embedder
        from memwarden.search.vector_path import VectorPath

        chosen = embedder if embedder is not None else open_embedder(settings)
        if chosen is not None:
            vectors = VectorPath(
                store,
                chosen,
                timeout_ms=settings.vector_timeout_ms,
                backfill_interval_s=settings.embed_backfill_interval_s,
                background=background,
                warmup_wait_ms=settings.vector_warmup_wait_ms,
                kind=settings.embedder if embedder is None else "custom",
            )
    intake = Intake(
        Analyzer(settings.languages),
        # Servers compile the rules now, so a broken rule pack stops start-up; one-shot CLI
        # commands compile them on first write, keeping `memwarden search` fast.
        redactor=build_redactor(settings) if ops else None,
        redactor_factory=functools.partial(build_redactor, settings),
        max_content_bytes=settings.max_content_bytes,
    )
    service = MemoryService(
        store,
        intake,
        default_caller=Caller(actor=settings.actor, tenant=settings.tenant).via(source),
        ranking=RankingWeights(half_life_days=settings.recency_half_life_days),
        tuning=Tuning(parse_optional_weight(settings.search_vector_weight), settings.search_thread_weight),
        ops=_ops_options(settings, backups) if ops else None,
        auditor=build_auditor(settings),
        vectors=vectors,
        vault=build_vault_mirror(settings),
    )
    try:
        # Straight to the store (what Operations.ensure_index does): the per-prompt paths never
        # build the operations part (see MemoryService.operations).
        service.store.ensure_index(
            service.intake.analyzer.fingerprint, service.intake.index_text, progress or _ReindexBar()
        )
    except BaseException:
        service.close()
        raise
    return service


def _ops_options(settings: Settings | HotSettings, backups: BackupManager | None) -> OpsOptions:
    from memwarden.ops.options import OpsOptions

    return OpsOptions(
        backups=backups or build_backups(settings),
        purge_grace=timedelta(days=settings.purge_grace_days),
        exchange_dir=settings.export_path(),
        import_max_bytes=settings.import_max_bytes,
        database_file=settings.sqlite_file(),
    )


def build_redactor(settings: Settings | HotSettings) -> Redactor:
    """MEMWARDEN_REDACTION and MEMWARDEN_REDACTION_RULES; a broken pack raises ConfigError."""
    if not settings.redaction_rules:  # the built-in rules: the pack reader is not imported
        from memwarden.govern.redactor import Redactor

        return Redactor(mode=settings.redaction)
    from memwarden.govern.packs import build_redactor as from_pack

    return from_pack(settings.redaction, settings.redaction_rules)


def build_auditor(settings: Settings | HotSettings) -> Auditor | None:
    """The audit log in the same database as the memories, or None with MEMWARDEN_AUDIT=false."""
    if not settings.audit:
        return None
    from memwarden.audit.auditor import Auditor
    from memwarden.store.audit_logs import open_audit_log

    key = None
    if settings.audit_key_file:  # the key and anchor modules are imported only when configured
        from pathlib import Path

        from memwarden.audit.keys import load_key

        key = load_key(Path(settings.audit_key_file).expanduser())
    log = open_audit_log(settings.database_url(), key=key)
    anchor = None
    if settings.audit_anchor_file:
        from pathlib import Path

        from memwarden.audit.anchor import AnchorFile

        anchor = AnchorFile(Path(settings.audit_anchor_file).expanduser())
    redactor: Redactor | None = None

    def scrub(query: str) -> str:
        nonlocal redactor
        redactor = redactor or build_redactor(settings)
        return redactor.scrub_text(query)

    return Auditor(
        log,
        query_plain=settings.audit_query_plain,
        redact=scrub,
        anchor=anchor,
        reads_fail_open=settings.audit_reads_fail_open,
    )


def build_vault_mirror(settings: Settings | HotSettings) -> VaultMirror | None:
    """The vault mirror for MEMWARDEN_VAULT_DIRS (memories of MEMWARDEN_TENANT), or None."""
    folders = settings.vault_folders()
    if not folders:
        return None
    from memwarden.vault.mirror import VaultMirror

    return VaultMirror(folders, tenant=settings.tenant)


def build_server_service(settings: Settings) -> MemoryService:
    """What a server start does, in order: a verified backup of the database as it is (before
    any migration; in the background when no migration is pending, so the server answers at
    once), open it (migrations run), check the keyword index with a real write and rebuild it if
    it fails, purge memories expired longer than the grace period."""
    backups = build_backups(settings)
    if backups is not None and not backups.backend.needs_migration():
        had_data = backups.backend.has_data()  # opening a new database creates it: nothing to keep
        service = build_service(settings, ops=True, backups=backups)
        # The start-up backup is recorded like `memwarden backup` (one backup row), through an
        # audit log of its own thread; a backup taken before a pending migration (below) is not:
        # the log is not open yet.
        backups.caller = service.default_caller
        backups.start_backup_in_background(needed=had_data, open_auditor=lambda: build_auditor(settings))
        return _checked_at_start(settings, service)
    record = None
    try:
        record = None if backups is None else backups.start_backup()
    except StorageError as exc:
        # A backup that cannot be written (full disk, bad folder) stops the start only when a
        # schema migration is about to run: never migrate without a backup. Otherwise serve,
        # and health reports the failed backup.
        assert backups is not None
        if backups.backend.needs_migration():
            raise StorageError(
                f"{exc.message}; a schema migration is pending and memwarden does not migrate without a "
                "backup: fix MEMWARDEN_BACKUP_DIR (or set MEMWARDEN_BACKUP_KEEP=0 to start without one)"
            ) from None
        logger.error("start-up backup failed (%s); serving anyway, see memwarden health", exc.message)
    if record is not None and not record.verified:
        logger.error("start-up backup %s failed verification; see memwarden health", record.path)
    return _checked_at_start(settings, build_service(settings, ops=True, backups=backups))


def _checked_at_start(settings: Settings, service: MemoryService) -> MemoryService:
    """The keyword index probed with a real write now; the checks that read every row (the
    index's count against the table's, the purge of long-expired memories: seconds at 1M
    memories, issue 21) run in a thread beside the serving server, which answers meanwhile, as
    does the warm-up of the write path (``Intake.warm``: a first add would wait for it)."""
    _warm_in_background(service)
    store = service.store
    if not isinstance(store, MaintainableStore):
        return service
    _check_keyword_index(service, store.probe_keyword_index)

    def whole_table_checks() -> None:
        _check_keyword_index(service, store.keyword_index_mismatch)
        _purge_at_start(settings, service)

    service.in_background(whole_table_checks, name="memwarden-start-checks")
    return service


def _warm_in_background(service: MemoryService) -> None:
    """``Intake.warm`` in a thread ``close`` waits for (``MemoryService.in_background``). It reads
    no store, but a process must not exit under it: a daemon thread still inside numpy when the
    interpreter shuts down is torn down through C++ frames and aborts the process ("terminate
    called without an active exception", seen when a stdio server was stopped during its warm-up).
    The wait is bounded by the warm-up itself, well under a second on an idle machine."""

    def warm() -> None:
        import memwarden.memories  # noqa: F401  (the write side's module, imported on first use)

        service.intake.warm()

    service.in_background(warm, name="memwarden-warm")


def _purge_at_start(settings: Settings, service: MemoryService) -> None:
    try:
        purged = service.operations.purge_expired()
    except Conflict as exc:
        # When: the clock reads far from the newest audit row (a jump, or a long idle time).
        # Why: a purge on a clock set forward removes memories before they expire, for good.
        # The caller sees a warning; `memwarden vacuum --force` purges once the clock is right.
        logger.warning("start-up purge skipped: %s", exc.message)
        return
    except Exception as exc:  # noqa: BLE001 - a background purge that fails must not stop the server
        # When: the database fails under the purge, or the server closes while it runs. Why:
        # the purge runs again at the next start and with `memwarden vacuum`. The caller sees
        # a warning in the log.
        logger.warning("start-up purge could not run: %s", exc)
        return
    if purged:
        logger.info(
            "purged %d memories expired more than %s days ago", len(purged), settings.purge_grace_days
        )


def _check_keyword_index(service: MemoryService, check: Callable[[], str | None]) -> None:
    """Run one keyword-index check; rebuild the index when it finds a problem."""
    try:
        problem = check()
        if problem is not None:
            logger.warning("keyword index failed its start-up check (%s); rebuilding it", problem)
            count = service.operations.rebuild_keyword_index()
            logger.warning("keyword index rebuilt from %d memories", count)
    except Exception as exc:  # noqa: BLE001 - a check that cannot run must not stop the server
        # When: the backend's check raises instead of reporting (a bug, a race between replicas
        # starting together, or the server closing while the background check runs). Why:
        # serving matters more than this check; health runs it again. The caller sees a
        # warning in the log and a normal start.
        logger.warning("start-up keyword index check could not run: %s", exc)


class RedactingFilter:
    """Every log record through memwarden's handlers, redacted by the configured rules.

    memwarden's own messages carry no memory content or query text, but some carry what a
    caller sent: an error naming a bad value (``'4111…' is not a memory id``), which the MCP SDK
    logs at INFO for every failed tool call. The message, its arguments merged in, and any
    traceback text are redacted before a handler writes them."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor

    def filter(self, record: Any) -> bool:
        message = record.getMessage()
        redacted = self.redactor.redact(message).text
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            import logging

            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redactor.redact(record.exc_text).text
        return True


def configure_logging(settings: Settings, *, to_stderr: bool = True) -> None:
    """Log to a file in the data directory (and stderr); never memory content or query text, and
    what a caller sent redacted (``RedactingFilter``). Other libraries' records below INFO are
    dropped whatever the level: at DEBUG they carry whole messages."""
    import logging

    handlers: list[logging.Handler] = []
    path = settings.log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(path, encoding="utf-8"))
    except OSError:
        pass
    if to_stderr:
        handlers.append(logging.StreamHandler())
    try:
        redacting = RedactingFilter(build_redactor(settings))
    except MemwardenError:  # a broken rule pack: the server refuses to start on it anyway
        from memwarden.govern.redactor import Redactor

        redacting = RedactingFilter(Redactor())

    def own_or_info(record: logging.LogRecord) -> bool:
        # MEMWARDEN_LOG_LEVEL=DEBUG is for memwarden's own messages: other libraries log whole
        # messages at DEBUG (sse_starlette every event it streams, the MCP SDK, httpx), memory
        # content included, so their records below INFO never reach a handler.
        return record.levelno >= logging.INFO or record.name.partition(".")[0] == "memwarden"

    for handler in handlers:
        handler.addFilter(own_or_info)
        handler.addFilter(redacting)
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )
