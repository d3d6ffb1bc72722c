"""Attacks on ``zoo gohr serve``: impersonation, sign-in floods, nested JSON, cross-origin posts, and the
headers every page carries."""

from __future__ import annotations

import json

import pytest
from gohr_web import ORIGIN, experiment, signed_in
from starlette.testclient import TestClient
from zoo_gohr.web.app import COOKIE, MAX_DEPTH, create_app
from zoo_gohr.web.security import RateLimit, Tokens, bounded_json


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _first_piece(client) -> int:
    return client.get("/api/state").json()["pieces"][0]["id"]


def test_a_known_id_without_its_token_gets_nothing(tmp_path):
    app = create_app(experiment(tmp_path))
    alice = signed_in(app, "alice")
    alice.post("/api/move", json={"piece": _first_piece(alice), "bucket": 0})
    before = alice.get("/api/state").json()
    attacker = TestClient(app, headers=ORIGIN)
    again = attacker.post("/start", data={"player": "alice", "consent": "yes"}, follow_redirects=False)
    assert again.status_code == 409 and "already signed in" in again.text and COOKIE not in again.cookies
    token = alice.cookies[COOKIE]
    forged = Tokens("another key" * 4, 3600).issue("alice", "guessed-nonce")
    tampered = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    for cookie in (forged, tampered, "alice", ""):
        attacker.cookies.set(COOKIE, cookie)
        assert attacker.get("/api/state").status_code == 401
        assert attacker.post("/api/move", json={"piece": before["pieces"][0]["id"], "bucket": 1}).status_code == 401
        assert attacker.get("/play", follow_redirects=False).headers["location"] == "/"
    assert alice.get("/api/state").json() == before


def test_a_token_signed_for_another_nonce_is_refused(tmp_path):
    """The token names the nonce of its sign-in: a valid signature over the right id is not enough."""
    store_experiment = experiment(tmp_path)
    app = create_app(store_experiment)
    signed_in(app, "alice")
    attacker = TestClient(app, headers=ORIGIN)
    attacker.cookies.set(COOKIE, store_experiment.tokens.issue("alice", "not-her-nonce"))
    assert attacker.get("/api/state").status_code == 401


def test_tokens_expire():
    clock_tokens = Tokens("k" * 40, max_age=-1)
    assert clock_tokens.read(clock_tokens.issue("alice", "n")) is None
    assert Tokens("k" * 40, 60).read(Tokens("k" * 40, 60).issue("alice", "n")) == ("alice", "n")


def test_a_flood_of_sign_ins_locks_out_no_new_participant(tmp_path):
    clock = Clock()
    exp = experiment(tmp_path, max_sessions=10, idle_seconds=600, sign_ins=(5, 60), clock=clock)
    app = create_app(exp)
    first = signed_in(app, "first", client=("10.0.0.1", 1))
    first.post("/api/move", json={"piece": _first_piece(first), "bucket": 0})
    first_state = first.get("/api/state").json()
    flooded = 0
    for address in range(2, 24):  # 22 addresses, each signing in until refused: 11 times the sessions kept
        flooder = TestClient(app, headers=ORIGIN, client=(f"10.0.1.{address}", 1))
        for _ in range(8):
            reply = flooder.post("/start", data={"consent": "yes"}, follow_redirects=False)
            if reply.status_code == 429:
                break
            assert reply.status_code == 303
            flooder.get("/api/state")  # each flooding session is live
            flooded += 1
        assert reply.status_code == 429 and "too many sign-ins" in reply.text
    assert flooded == 22 * 5 and len(exp.live) <= 10  # the sessions never pile up beyond the cache
    newcomer = signed_in(app, "newcomer", client=("10.0.2.1", 1))
    assert newcomer.post("/api/move", json={"piece": _first_piece(newcomer), "bucket": 0}).status_code == 200
    assert first.get("/api/state").json() == first_state  # pushed out of the cache, rebuilt from the store
    clock.now += 61  # the window has passed: the flooders' addresses may sign in again
    assert TestClient(app, headers=ORIGIN, client=("10.0.1.2", 1)).post(
        "/start", data={"consent": "yes"}, follow_redirects=False).status_code == 303


def test_idle_sessions_expire_and_free_their_place(tmp_path):
    clock = Clock()
    exp = experiment(tmp_path, idle_seconds=60, clock=clock)
    app = create_app(exp)
    idle = signed_in(app, "idle")
    idle.post("/api/move", json={"piece": _first_piece(idle), "bucket": 0})
    state = idle.get("/api/state").json()
    assert list(exp.live) == ["idle"]
    clock.now += 61
    signed_in(app, "active").get("/api/state")
    assert list(exp.live) == ["active"]
    assert idle.get("/api/state").json() == state  # the idle participant comes back to their board


def test_rate_limit_counts_per_client_in_a_sliding_window():
    clock = Clock()
    limit = RateLimit(3, 10, clients=2, clock=clock)
    assert [limit.allow("a") for _ in range(4)] == [True, True, True, False]
    assert limit.allow("b")
    clock.now += 10.5
    assert limit.allow("a")
    limit.allow("c")  # a third client: the longest quiet one is forgotten
    assert set(limit.seen) == {"a", "c"}


@pytest.mark.parametrize("body", [
    b"[" * 4000 + b"]" * 4000,
    b'{"piece": ' + b"[" * 2000 + b"]" * 2000 + b', "bucket": 0}',
    b'{"answers": ' + b'{"a":' * 600 + b"1" + b"}" * 600 + b"}",
])
def test_deeply_nested_json_gets_400(tmp_path, body):
    client = signed_in(create_app(experiment(tmp_path)), "dave")
    before = client.get("/api/state").json()
    for url in ("/api/move", "/api/answers"):
        reply = client.post(url, content=body[:4096], headers={"content-type": "application/json"})
        assert reply.status_code == 400 and "levels" in reply.json()["error"], reply.text
    assert client.get("/api/state").json() == before


def test_the_depth_count_ignores_brackets_in_strings():
    assert bounded_json(json.dumps({"text": "[[[[[[[[[[{{{{{{{{{{"}).encode(), 2) == {"text": "[[[[[[[[[[{{{{{{{{{{"}
    assert bounded_json(b'"\\\\"', 1) == "\\"
    with pytest.raises(ValueError, match="deeper than 2"):
        bounded_json(b"[[[1]]]", 2)
    assert bounded_json(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH, MAX_DEPTH) is not None


def test_cross_origin_posts_are_refused(tmp_path):
    app = create_app(experiment(tmp_path), admin_token="t" * 20)
    alice = signed_in(app, "alice")
    before = alice.get("/api/state").json()
    piece = before["pieces"][0]["id"]
    for headers in ({"origin": "https://evil.example"}, {"origin": "null"}, {"referer": "https://evil.example/x"},
                    {}):
        evil = TestClient(app, cookies={COOKIE: alice.cookies[COOKIE]}, headers=headers)
        assert evil.post("/api/move", json={"piece": piece, "bucket": 0}).status_code == 403
        assert evil.post("/start", data={"player": "mallory", "consent": "yes"}).status_code == 403
        assert evil.post("/admin/withdraw", data={"player": "alice"},
                         headers={"authorization": "Bearer " + "t" * 20}).status_code == 403
    assert alice.get("/api/state").json() == before
    same_site_referer = TestClient(app, cookies={COOKIE: alice.cookies[COOKIE]},
                                   headers={"referer": "http://testserver/play"})
    assert same_site_referer.post("/api/move", json={"piece": piece, "bucket": 0}).status_code == 200


def test_behind_a_proxy_only_the_public_origin_may_post(tmp_path):
    app = create_app(experiment(tmp_path), origins=("https://study.example.org",))
    client = TestClient(app, headers={"origin": "https://study.example.org"})
    reply = client.post("/start", data={"consent": "yes"}, follow_redirects=False)
    assert reply.status_code == 303 and "secure" in reply.headers["set-cookie"].lower()
    assert TestClient(app, headers=ORIGIN).post("/start", data={"consent": "yes"}).status_code == 403


def test_every_response_carries_the_security_headers(tmp_path):
    app = create_app(experiment(tmp_path))
    client = signed_in(app, "alice")
    replies = [client.get(url) for url in ("/", "/play", "/api/state", "/static/play.js", "/nowhere")]
    replies.append(TestClient(app, headers={"origin": "https://evil.example"}).post("/start"))
    for reply in replies:
        csp = reply.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "'unsafe-inline'" not in csp
        assert reply.headers["x-content-type-options"] == "nosniff"
        assert reply.headers["referrer-policy"] == "same-origin"  # (no-referrer would make Chromium post Origin: null)
        assert reply.headers["x-frame-options"] == "DENY"
    cookie = signed_in(app, "bob").cookies  # the session cookie is HttpOnly and SameSite=Strict
    start = TestClient(app, headers=ORIGIN).post("/start", data={"consent": "yes"}, follow_redirects=False)
    assert {"httponly", "samesite=strict"} <= {part.strip().lower() for part in start.headers["set-cookie"].split(";")}
    assert COOKIE in cookie
