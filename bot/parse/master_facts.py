"""Domain facts about a master-config entry, from the knowledge data. Pure.

Which GPU SKU a runner label schedules on, which models share an architecture,
which SKUs are established, which engine a framework name runs, and whether an
image is one of the engine's upstream images. `bot.parse.master_config`
re-exports them.
"""

from __future__ import annotations

from bot.base.knowledge import Knowledge


def runner_sku(runner: str, knowledge: Knowledge) -> str:
    """The GPU SKU a runner label schedules on: `cluster:b200-dgxc` -> `b200`.

    `knowledge.skus.runners` maps labels that do not follow the
    `[cluster:]<sku>[-<suffix>]` pattern.
    """
    explicit = knowledge.skus.runners
    if runner in explicit:
        return str(explicit[runner]).lower()
    label = runner.strip().lower()
    label = label.removeprefix("cluster:")
    return label.split("-", 1)[0]


def model_family(prefix: str, knowledge: Knowledge) -> frozenset[str]:
    """The model prefixes of one architecture class (`knowledge.model_families`)."""
    for names in knowledge.model_families:
        if prefix in names:
            return names
    return frozenset({prefix})


def established_sku(sku: str, knowledge: Knowledge) -> bool:
    return sku in knowledge.skus.established


def engine_family(framework: str, knowledge: Knowledge) -> str | None:
    """The upstream engine (`vllm`, `sglang`) a framework serves with, or None.

    A framework counts as an engine when the engine's name is one of its
    `-`-separated parts (`dynamo-sglang`, `sglang-disagg`, `llmd-vllm`), or
    when `knowledge.upstream_engines.<engine>.frameworks` lists it.
    """
    engines = knowledge.upstream_engines
    name = framework.strip().lower()
    for engine, spec in engines.items():
        listed = {f.lower() for f in spec.frameworks}
        if name in listed:
            return str(engine)
    parts = set(name.split("-"))
    for engine in engines:
        if str(engine).lower() in parts:
            return str(engine)
    return None


def normalise_image(image: str) -> str:
    """`nvcr.io#nvidia/x:1` -> `nvcr.io/nvidia/x:1`; Docker Hub's own host names dropped."""
    out = image.strip().replace("#", "/")
    for host in ("docker.io/", "index.docker.io/", "registry-1.docker.io/"):
        if out.lower().startswith(host):
            out = out[len(host) :]
            break
    out = out.removeprefix("library/")
    return out


def image_repository(image: str) -> str:
    """The image without its tag or digest: `lmsysorg/sglang:v0.5@sha256:..` -> `lmsysorg/sglang`."""
    name = normalise_image(image).split("@", 1)[0]
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        name = name[:colon]
    return name


def upstream_image(image: str, engine: str, knowledge: Knowledge) -> bool:
    """Whether `image` is one the upstream project of `engine` publishes."""
    spec = knowledge.upstream_engines.get(engine)
    prefixes = [p.lower() for p in spec.images] if spec is not None else []
    repo = image_repository(image).lower()
    return any(repo == p.rstrip("/") or repo.startswith(p) for p in prefixes)
