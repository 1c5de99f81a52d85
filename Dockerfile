# memwarden in a container: Streamable HTTP on port 8765, data on a volume at /data.
# Build:  docker build -t memwarden .
# Run:    docker compose up -d   (see compose.yaml and docs/operations.md)
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
RUN useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin memwarden \
 && mkdir -p /data && chown memwarden:memwarden /data
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
USER memwarden
ENV MEMWARDEN_DB=/data/memwarden.db \
    MEMWARDEN_BACKUP_DIR=/data/backups \
    MEMWARDEN_EXPORT_DIR=/data/exports \
    MEMWARDEN_HTTP=0.0.0.0:8765 \
    PYTHONUNBUFFERED=1
VOLUME ["/data"]
EXPOSE 8765
# Deep health: integrity, a real keyword-index write, backups; sends MEMWARDEN_HTTP_TOKEN.
HEALTHCHECK --interval=60s --timeout=30s --start-period=30s --retries=3 \
  CMD ["memwarden", "health", "--url", "http://127.0.0.1:8765", "--timeout", "25"]
# Off loopback the server refuses to start without MEMWARDEN_HTTP_TOKEN: pass it from an env file.
CMD ["memwarden", "serve"]
