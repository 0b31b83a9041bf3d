# recipe-review bot: the GitHub App webhook service (`bot serve`).
#
# The install step is the tested path: .ci/run does the same `pip install '.[server,llm]'`
# (the webhook service and the LLM advisor on top of the linter) into a clean venv, then
# starts `bot serve` from it and runs this image's health check command against it. The SQLite queue lives on the /data volume; mount it so a
# restart resumes unfinished reviews.
# For several replicas set BOT_DB=postgresql://... (run `bot db migrate` first; the
# entrypoint takes it as `--entrypoint bot ... db migrate`): deploy/compose.yaml.
#
#   docker build -t recipe-review-bot .
#   docker run -d -p 8080:8080 -v bot-data:/data --stop-timeout 40 \
#     -e BOT_WEBHOOK_SECRET=... -e GITHUB_APP_ID=... \
#     -e GITHUB_APP_PRIVATE_KEY_PATH=/run/secrets/app.pem recipe-review-bot
FROM python:3.11-slim
# The build context is an allowlist (.dockerignore): pyproject.toml, README.md,
# bot/, rules/ and schemas/.

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# A fixed numeric uid/gid: Kubernetes `runAsNonRoot` can verify a numeric USER,
# and a mounted /data volume can be chowned to 10001 ahead of time.
RUN groupadd --gid 10001 bot \
    && useradd --create-home --uid 10001 --gid 10001 bot \
    && mkdir -p /data \
    && chown 10001:10001 /data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY rules ./rules
COPY schemas ./schemas
RUN pip install --no-cache-dir '.[server,llm]' && rm -rf /root/.cache

USER 10001:10001
WORKDIR /data
ENV BOT_DB=/data/bot-queue.sqlite3 \
    BOT_HOST=0.0.0.0 \
    BOT_PORT=8080
VOLUME ["/data"]
EXPOSE 8080

# Ready = the queue database answers, credentials are loaded, every worker lives.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
    CMD ["python", "-m", "bot.server.healthcheck"]

# SIGTERM (docker stop) drains: no new jobs, running reviews finish (up to 30 s);
# a review cut short is re-leased after restart and never posted twice.
ENTRYPOINT ["bot", "serve"]
