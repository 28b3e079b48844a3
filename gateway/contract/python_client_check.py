"""The generated Python client, used as an integrator would, against a gateway on a fresh database.

    gateway/contract/gateway.sh target/pytools/bin/python gateway/contract/python_client_check.py
    (make test-contract; after `gateway/contract/clients.sh DOCUMENT python` made target/contract/python)

The client (openapi-python-client's ingest_client) is given the base URL the document itself names
(INGEST_BASE_URL: its server URL read relative to the document) and the seeded credential. It calls
ping, lists lots, PUTs a lot as a dry run and for real, reads a bookings page, and gets typed 401 and
422 answers; every answer must parse into the documented model with the values the seed and the
calls imply. Any difference fails with what was expected and what came.
"""

import datetime
import enum
import os
import sys
import typing
from http import HTTPStatus

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "target", "contract", "python"))

from ingest_client import AuthenticatedClient  # noqa: E402
from ingest_client.api.bookings import list_bookings  # noqa: E402
from ingest_client.api.credential import ping  # noqa: E402
from ingest_client.api.lots import list_lots, put_lot  # noqa: E402
from ingest_client.models import (  # noqa: E402
    Booking,
    BookingPage,
    Error,
    LotPage,
    LotWriteBody,
    LotWriteResult,
    PingResult,
)
from ingest_client.types import UNSET, Unset  # noqa: E402

BASE_URL = os.environ["INGEST_BASE_URL"]
BEARER = os.environ["INGEST_BEARER"]
passed = 0


def check(what, actual, expected):
    """One expectation: `actual == expected`, or fail naming both."""
    global passed
    if actual != expected:
        sys.exit(f"python client check FAILED: {what}: expected {expected!r}, got {actual!r}")
    passed += 1


def answer(what, response, status, model):
    """The response has this status and its parsed body is an instance of this generated model."""
    check(f"{what}: status (body {response.content[:300]!r})", response.status_code, status)
    check(f"{what}: parsed type", type(response.parsed), model)
    return response.parsed


def value(member):
    """An enum member's wire value (the client parses documented choices into enums)."""
    return member.value if isinstance(member, enum.Enum) else member


def dry_run_is_a_boolean(endpoint):
    """The operation's `dry_run` parameter as the client gave it: a plain bool, so `dry_run=True` asks for one."""
    hint = typing.get_type_hints(endpoint.sync_detailed)["dry_run"]
    kinds = [arg for arg in typing.get_args(hint) if arg is not Unset]
    check("dry_run's type in the client", kinds, [bool])


def main():
    client = AuthenticatedClient(base_url=BASE_URL, token=BEARER, raise_on_unexpected_status=True)
    key_id = BEARER.split(".", 1)[0]

    result = answer("ping", ping.sync_detailed(client=client), HTTPStatus.OK, PingResult)
    check("ping: ok", result.ok, True)
    check("ping: key_id", result.key_id, key_id)
    check("ping: scopes", sorted(value(scope) for scope in result.scopes), ["read_bookings", "read_supply", "write_supply"])
    check("ping: server_time is an aware datetime", isinstance(result.server_time, datetime.datetime)
          and result.server_time.tzinfo is not None, True)

    page = answer("list lots", list_lots.sync_detailed(client=client), HTTPStatus.OK, LotPage)
    check("list lots: the seeded lot", [lot.external_id for lot in page.lots], ["lot-1"])
    lot = page.lots[0]
    check("list lots: name", lot.name, "Contract lot")
    check("list lots: handover", value(lot.handover), "self")
    check("list lots: features", lot.features, [])
    check("list lots: no price yet", lot.rates, None)
    check("list lots: the last page", page.next_after, None)

    sent = {
        "name": "Client lot",
        "timezone": "Europe/London",
        "handover": "attended",
        "online_bookable": False,
        "capacity": 40,
        "city": "Leeds",
        "country_code": "GB",
        "features": ["ev_charging", "cameras"],
        "cancellation": {"free_until_hours_before_check_in": 48, "penalty_percent_after": "25.50", "no_show_forfeits_full": True},
    }
    body = LotWriteBody.from_dict(sent)
    check("lot body: the model writes back what it read", body.to_dict(), sent)
    dry_run_is_a_boolean(put_lot)
    dry_run = True
    result = answer("PUT lot, dry run", put_lot.sync_detailed("client-lot", client=client, body=body, dry_run=dry_run),
                    HTTPStatus.OK, LotWriteResult)
    check("PUT lot, dry run: result", value(result.result), "created")
    check("PUT lot, dry run: dry_run", result.dry_run, True)
    check("PUT lot, dry run: the lot read back", (result.lot.external_id, result.lot.name, value(result.lot.handover)),
          ("client-lot", "Client lot", "attended"))
    check("PUT lot, dry run: features as a sorted set", [value(f) for f in result.lot.features], ["cameras", "ev_charging"])
    check("PUT lot, dry run: nothing stored", len(list_lots.sync_detailed(client=client).parsed.lots), 1)

    result = answer("PUT lot", put_lot.sync_detailed("client-lot", client=client, body=body), HTTPStatus.CREATED, LotWriteResult)
    check("PUT lot: result", value(result.result), "created")
    check("PUT lot: no dry_run key", result.dry_run, UNSET)
    check("PUT lot: cancellation read back", result.lot.cancellation.to_dict(),
          {"free_until_hours_before_check_in": 48, "penalty_percent_after": "25.50", "no_show_forfeits_full": True})
    result = answer("PUT lot again", put_lot.sync_detailed("client-lot", client=client, body=body), HTTPStatus.OK, LotWriteResult)
    check("PUT lot again: result", (value(result.result), result.changed), ("unchanged", []))
    page = list_lots.sync_detailed(client=client).parsed
    check("list lots: both lots", sorted(lot.external_id for lot in page.lots), ["client-lot", "lot-1"])

    page = answer("list bookings", list_bookings.sync_detailed(client=client, limit=10), HTTPStatus.OK, BookingPage)
    check("list bookings: the two seeded bookings", sorted(value(b.status) for b in page.bookings), ["cancelled", "confirmed"])
    check("list bookings: models", {type(b) for b in page.bookings}, {Booking})
    check("list bookings: has_more", page.has_more, False)
    check("list bookings: a cursor", isinstance(page.next_, str) and page.next_ != "", True)
    for booking in page.bookings:
        cancelled = value(booking.status) == "cancelled"
        check(f"booking {booking.reference}: lot", (booking.lot_external_id, booking.lot_name, booking.timezone),
              ("lot-1", "Contract lot", "Europe/London"))
        check(f"booking {booking.reference}: created_at is an aware datetime",
              isinstance(booking.created_at, datetime.datetime) and booking.created_at.tzinfo is not None, True)
        check(f"booking {booking.reference}: cancelled_at", isinstance(booking.cancelled_at, datetime.datetime), cancelled)
        expected = ("refunded", "0.00", None, None, None) if cancelled else ("paid", "48.50", "OPS-1001", "BA1234", "+44 20 7946 0000")
        check(f"booking {booking.reference}: payment, total, nullable fields",
              (value(booking.payment_status), booking.total, booking.external_reference, booking.flight_number,
               booking.customer.phone), expected)
    again = answer("list bookings from the cursor", list_bookings.sync_detailed(client=client, since=page.next_),
                   HTTPStatus.OK, BookingPage)
    check("list bookings from the cursor: at-least-once (recent rows come again, or none)", len(again.bookings) in (0, 2), True)

    wrong = AuthenticatedClient(base_url=BASE_URL, token=f"{key_id}.pk_sec_{'0' * 64}", raise_on_unexpected_status=True)
    response = ping.sync_detailed(client=wrong)
    error = answer("ping with a wrong secret", response, HTTPStatus.UNAUTHORIZED, Error)
    check("ping with a wrong secret: error", (error.error, error.field), ("unauthorized", UNSET))
    check("ping with a wrong secret: WWW-Authenticate", response.headers.get("www-authenticate"), "Bearer")

    error = answer("list bookings with limit 501", list_bookings.sync_detailed(client=client, limit=501),
                   HTTPStatus.UNPROCESSABLE_ENTITY, Error)
    check("list bookings with limit 501: error", (error.error, error.field), ("invalid_query", "limit"))
    body = LotWriteBody.from_dict({**sent, "timezone": "Mars/Olympus_Mons"})
    error = answer("PUT lot in an unknown zone", put_lot.sync_detailed("client-lot", client=client, body=body, dry_run=dry_run),
                   HTTPStatus.UNPROCESSABLE_ENTITY, Error)
    check("PUT lot in an unknown zone: error", (error.error, error.field), ("invalid_timezone", "timezone"))

    print(f"python client check: {passed} passed, 0 failed")


if __name__ == "__main__":
    main()
