# The only entry points (docs/developing.md). Each installs what it needs on a fresh Debian machine.
#
#   make run    local cluster under .pg/ (unless DATABASE_URL is set), migrate, seed a demo
#               operator, print a working credential and curl line, serve on 127.0.0.1:8080
#   make bench  the gateway and its SQL against PostgreSQL's own limit (wrk, pgbench), written to
#               bench/RESULTS.md by bench/driver (BENCH_DURATION, BENCH_ROUNDS, BENCH_SIZES,
#               BENCH_CONNECTIONS); then `cargo bench` for the pure hot paths
#   make test   every test layer: rustfmt and clippy, pgTAP (pg_prove, twice for body files: C and
#               en_US locales), plpgsql_check, cargo tests, the OpenAPI checks, schemathesis, the
#               documentation page in headless Chromium, and the webhook receiver example against a
#               real delivery
#   make bench-capacity  how many operators one machine serves (bench/capacity/RESULTS.md)

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

CLUSTER := sql/dev/cluster.sh
LISTEN_ADDR ?= 127.0.0.1:8080
BASE_PATH ?= /v1

.PHONY: help deps db build run demo-booking hints-up hints-down test lint test-sql test-rust test-openapi test-contract test-docs-page test-examples test-deploy image fuzz bench bench-capacity \
        openapi-document openapi-python-client

help:
	@echo "make run    start a local database, seed a demo credential and serve on $(LISTEN_ADDR)"
	@echo "make test   run every test layer (installs what it needs)"
	@echo "make bench  the benchmarks: wrk, pgbench and the plainest SQL (bench/RESULTS.md)"
	@echo "make fuzz   the parser property tests with 200 000 cases each"

deps:
	@$(CLUSTER) install
	@command -v cargo >/dev/null || { echo "cargo is required (https://rustup.rs)"; exit 1; }
	@cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
	@cargo clippy --version >/dev/null 2>&1 || rustup component add clippy

# The local cluster, unless DATABASE_URL points at a database of your own.
db: deps
	@if [ -z "$${DATABASE_URL:-}" ]; then $(CLUSTER) start; fi

build:
	cargo build --release --locked --bin ingest

# sql/dev/run.sh: migrate, seed the demo operator, print a credential, serve (the gateway and the
# worker as their own roles on the local cluster).
run: db build
	@LISTEN_ADDR="$(LISTEN_ADDR)" BASE_PATH="$(BASE_PATH)" exec sql/dev/run.sh

# A booking for make run's demo operator, as the platform records one (sql/dev/demo_booking.sql), on
# LOT (default: its first lot).
LOT ?=
demo-booking:
	@psql "$${DATABASE_URL:-$$($(CLUSTER) url)}" -qX -v lot="$(LOT)" -f sql/dev/demo_booking.sql

# Hints from make run to the example receiver on this machine (sql/dev/local_hints.sh): a local
# authority and certificate, a hosts line for hooks.example.test to HINTS_ADDR, the demo operator's
# endpoint; it prints the two commands to run. hints-down undoes it all.
HINTS_ADDR ?= 127.0.0.2
hints-up:
	@sql/dev/local_hints.sh up "$(HINTS_ADDR)"
hints-down:
	@sql/dev/local_hints.sh down

# Always the local cluster: tests create and drop databases of their own.
test: deps
	@$(CLUSTER) install tests
	@$(CLUSTER) start
	cargo build --locked --bin ingest
	$(MAKE) --no-print-directory lint test-sql test-rust test-openapi test-contract test-docs-page test-examples test-deploy

# The code's layout is rustfmt's (rustfmt.toml), and clippy finds nothing, tests included.
lint:
	cargo fmt --check
	cargo clippy --locked --workspace --all-targets -- -D warnings

test-sql:
	INGEST_BIN=target/debug/ingest pgtap/run.sh

test-rust:
	TEST_DATABASE_URL="$$($(CLUSTER) url postgres)" PG_BIN=/usr/lib/postgresql/15/bin cargo test --locked --workspace

# The published OpenAPI document, used the way integrators use it (gateway/contract/: the tools pinned
# there, installed under target/ by tools.sh): valid against the OpenAPI 3.1 meta-schema
# (openapi-spec-validator), no error or warning from Redocly CLI's or Spectral's lint, a Python client
# (openapi-python-client) generated without warning that imports, and TypeScript types
# (openapi-typescript) that the document's own examples of bodies and answers compile against
# (tsc --strict).
PYTOOLS := target/pytools
test-openapi: openapi-python-client
	gateway/contract/lint.sh target/openapi.json
	gateway/contract/clients.sh target/openapi.json typescript

# (made once in a run, for both test-openapi and test-contract)
openapi-document:
	gateway/contract/tools.sh
	target/debug/ingest openapi > target/openapi.json
	$(PYTOOLS)/bin/openapi-spec-validator target/openapi.json
openapi-python-client: openapi-document
	gateway/contract/clients.sh target/openapi.json python

# Contract tests, each against a gateway of its own on a fresh database (gateway/contract/gateway.sh):
# the generated Python client's calls, every write body field's own form (field_forms.py: what the
# document allows for a field, the server takes), the integrator's guide's Python section run as
# written (guide_python.sh), and schemathesis over every route (run.sh).
CONTRACT_GATEWAY := INGEST_BIN=target/debug/ingest gateway/contract/gateway.sh $(PYTOOLS)/bin/python
test-contract: openapi-python-client
	$(CONTRACT_GATEWAY) gateway/contract/python_client_check.py
	$(CONTRACT_GATEWAY) gateway/contract/field_forms.py
	INGEST_BIN=target/debug/ingest gateway/contract/gateway.sh gateway/contract/guide_python.sh
	INGEST_BIN=target/debug/ingest gateway/contract/run.sh

# The documentation page (<root>/docs) in a real headless Chromium (gateway/contract/docs_page.py):
# the page served and the page `ingest openapi --html` prints show every operation, with no error in
# the console and nothing asked of another address; screenshots under target/. Before it, the
# vendored Swagger UI files the page embeds is checked against its pinned release.
test-docs-page: openapi-document
	gateway/vendor/swagger-ui/check.sh
	gateway/contract/tools.sh browser
	$(CONTRACT_GATEWAY) gateway/contract/docs_page.py

# The operators' webhook receiver example (gateway/examples/webhook_receiver.py), run by its test
# against a real delivery of the worker: the pinned requirements in a venv under target/ (made
# again when requirements.txt changes), then the test that plain `cargo test` skips.
EXAMPLES_VENV := target/examples-venv
test-examples: $(EXAMPLES_VENV)/.installed
	EXAMPLE_PYTHON="$(CURDIR)/$(EXAMPLES_VENV)/bin/python" TEST_DATABASE_URL="$$($(CLUSTER) url postgres)" \
	    PG_BIN=/usr/lib/postgresql/15/bin cargo test --locked --test integration webhook_receiver_example -- --ignored

$(EXAMPLES_VENV)/.installed: gateway/examples/requirements.txt
	python3 -m venv $(EXAMPLES_VENV)
	$(EXAMPLES_VENV)/bin/pip install -q -r gateway/examples/requirements.txt
	touch $@

# The OCI image of `ingest` (deploy/image/build.sh: podman from a root filesystem made here, no
# registry): localhost/ingest:<version> and :latest, its id and size printed.
image:
	deploy/image/build.sh

# The deployment as production runs it (gateway/tests/integration/deploy.rs): the image, made from
# the debug build make test has already made, migrates the tests' database; two containers of it
# serve behind HAProxy (deploy/haproxy/haproxy.cfg), rolled twice and one killed under load.
test-deploy:
	deploy/install.sh haproxy
	IMAGE_PROFILE=debug IMAGE_CHECK_REPRODUCIBLE=1 deploy/image/build.sh
	TEST_DATABASE_URL="$$($(CLUSTER) url postgres)" PG_BIN=/usr/lib/postgresql/15/bin \
	    cargo test --locked --test integration deploy:: -- --ignored --nocapture

# The parser property tests with many more cases than make test runs.
fuzz:
	PROPTEST_CASES=200000 cargo test --locked --release --test integration parsers_fuzz

# How many operators one machine serves (bench/capacity/run.sh: the load model of
# bench/capacity/src/model.rs, by steps, rate limits on, webhooks delivered to a local receiver):
# bench/capacity/RESULTS.md. CAPACITY_QUICK=1 for one short step.
bench-capacity: deps
	bench/capacity/run.sh

# The load benchmark (bench/driver: wrk against the release gateway, pgbench making the same calls and
# the plainest SQL returning the same JSON) at two data sizes, then criterion over the pure hot paths.
bench: deps
	cargo run --release --locked -p driver
	cargo bench --locked -p gateway --bench hot_paths
