# Minimal image of the recipe-review bot CLI. The webhook service (`bot serve`)
# arrives with the webhook milestone; the install step is the tested path
# (`pip install .` into a clean environment, as .ci/run does).
FROM python:3.11-slim
RUN useradd --create-home --uid 10001 bot
WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY rules ./rules
COPY schemas ./schemas
RUN pip install --no-cache-dir . && rm -rf /root/.cache
USER bot
WORKDIR /work
ENTRYPOINT ["bot"]
CMD ["--help"]
