// The play page: draws what the server sends (a board, or questions) and sends moves and answers.
// The browser never knows the rule: the server judges every move. A move is made by choosing a piece
// (click, tap, or Enter/Space on the focused piece) and then a bucket, or by dragging a piece onto a
// bucket with a mouse, pen or finger (pointer events). Everything a person reads counts from 1.
"use strict";

const COLORS = { RED: "#c81e1e", BLACK: "#1e1e1e", BLUE: "#1d4ed8", YELLOW: "#e8b90c" };
const SHAPES = {
  SQUARE: '<rect x="6" y="6" width="32" height="32"/>',
  CIRCLE: '<circle cx="22" cy="22" r="17"/>',
  TRIANGLE: '<polygon points="22,4 40,38 4,38"/>',
  STAR: '<polygon points="22,2 27,16 42,16 30,25 34,40 22,31 10,40 14,25 2,16 17,16"/>',
};
const BUCKETS = ["top left", "top right", "bottom right", "bottom left"];

let selected = null;  // the id of the chosen piece
let busy = false;     // a request is on its way

const $ = (id) => document.getElementById(id);
const lower = (word) => String(word).toLowerCase();

function describe(piece) {
  return `${lower(piece.color)} ${lower(piece.shape)}, column ${piece.x}, row ${piece.y}`;
}

function pieceButton(piece) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "piece";
  button.id = `piece-${piece.id}`;
  button.dataset.id = piece.id;
  button.setAttribute("aria-pressed", String(piece.id === selected));
  button.setAttribute("aria-label", describe(piece));
  const shape = SHAPES[piece.shape] || '<rect x="6" y="6" width="32" height="32" rx="8"/>';
  button.innerHTML = `<svg viewBox="0 0 44 44" aria-hidden="true" focusable="false">` +
    `<g fill="${COLORS[piece.color] || "#777"}" stroke="#000" stroke-width="1">${shape}</g></svg>`;
  return button;
}

function drawBoard(state) {
  const board = $("board");
  board.replaceChildren();
  if (!state.pieces.some((p) => p.id === selected)) selected = null;
  const at = new Map(state.pieces.map((p) => [`${p.x},${p.y}`, p]));
  for (let y = 6; y >= 1; y--) {
    for (let x = 1; x <= 6; x++) {
      const cell = document.createElement("div");
      cell.className = "cell";
      const piece = at.get(`${x},${y}`);
      if (piece) cell.appendChild(pieceButton(piece));
      board.appendChild(cell);
    }
  }
}

function drawHistory(state) {
  const list = $("history");
  list.replaceChildren(...state.history.map((move) => {
    const item = document.createElement("li");
    item.textContent = `${describe(move)} to bucket ${move.bucket + 1} (${BUCKETS[move.bucket]}): ` +
      (move.accepted ? "accepted" : "not accepted");
    return item;
  }));
}

function statusLine(state) {
  const where = state.rule_number === null ? "Practice" : `Rule ${state.rule_number} of ${state.rules}`;
  return `${where} · board ${state.board} of ${state.boards} · moves ${state.moves} · not accepted ${state.errors}`;
}

function show(state) {
  if (state.phase === "done") { location.assign("/done"); return; }
  const asking = state.phase === "questions" || state.phase === "final";
  $("play-area").hidden = asking;
  $("questions").hidden = !asking;
  if (asking) { showQuestions(state); return; }
  $("status").textContent = statusLine(state);
  drawBoard(state);
  drawHistory(state);
}

function feedback(text, verdict) {
  const line = $("feedback");
  line.textContent = text;
  line.className = `feedback ${verdict}`;
}

function choose(id) {
  selected = selected === id ? null : id;
  for (const button of document.querySelectorAll(".piece")) {
    button.setAttribute("aria-pressed", String(Number(button.dataset.id) === selected));
  }
  feedback(selected === null ? "Choose a piece." : "Now choose a bucket.", "");
}

async function post(url, body) {
  const reply = await fetch(url, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const data = await reply.json();
  return { ok: reply.ok, data };
}

async function send(piece, bucket) {
  if (busy) return;
  busy = true;
  feedback("…", "");
  let answer;
  try {
    answer = await post("/api/move", { piece, bucket });
  } catch (error) {
    feedback("The server did not answer; your move was not counted. Try again.", "denied");
    return;
  } finally {
    busy = false;
  }
  if (!answer.ok) { feedback(answer.data.error, "denied"); return; }
  const data = answer.data;
  if (data.state.phase === "done") { location.assign("/done"); return; }
  selected = null;
  const target = $(`bucket-${bucket}`);
  for (const b of document.querySelectorAll(".bucket")) b.classList.remove("accepted", "denied");
  target.classList.add(data.accepted ? "accepted" : "denied");
  let text = data.accepted ? "Accepted." : "Not accepted: the piece stays.";
  if (data.board_over) {
    text += ` Board over: ${data.board_over.moves} moves, ${data.board_over.errors} not accepted.`;
  }
  feedback(text, data.accepted ? "accepted" : "denied");
  show(data.state);
  // the pieces were drawn anew: a keyboard player goes on from the first piece, not from the bucket
  const first = document.querySelector(".piece");
  const focus = document.activeElement;
  if (first && (focus === document.body || focus.classList.contains("bucket"))) first.focus();
}

// choosing and dragging: a press on a piece that is released over a bucket is a move; released
// anywhere else it is a click (which chooses the piece)
let drag = null;
$("board").addEventListener("pointerdown", (event) => {
  const piece = event.target.closest(".piece");
  if (piece) drag = { id: Number(piece.dataset.id), x: event.clientX, y: event.clientY };
});
document.addEventListener("pointerup", (event) => {
  if (!drag) return;
  const moved = Math.hypot(event.clientX - drag.x, event.clientY - drag.y) > 8;
  const under = document.elementFromPoint(event.clientX, event.clientY);
  const bucket = under && under.closest(".bucket");
  if (moved && bucket) {
    suppressClick = true;  // the click this release may fire is part of the drag (cleared once it has passed)
    setTimeout(() => { suppressClick = false; }, 0);
    send(drag.id, Number(bucket.dataset.bucket));
  }
  drag = null;
});
let suppressClick = false;
$("board").addEventListener("click", (event) => {
  const piece = event.target.closest(".piece");
  if (!piece) return;
  if (suppressClick) { suppressClick = false; return; }
  choose(Number(piece.dataset.id));
});
for (const bucket of document.querySelectorAll(".bucket")) {
  bucket.addEventListener("click", () => {
    if (suppressClick) { suppressClick = false; return; }
    if (selected === null) { feedback("Choose a piece first.", "denied"); return; }
    send(selected, Number(bucket.dataset.bucket));
  });
}

// questions: free text, one of several choices, or a point on a scale
function questionField(question) {
  const name = `q-${question.id}`;
  if (question.kind === "text") {
    const wrap = document.createElement("div");
    const label = document.createElement("label");
    label.htmlFor = name;
    label.textContent = question.text;
    const area = document.createElement("textarea");
    area.id = name;
    area.name = question.id;
    area.required = question.required;
    area.maxLength = 4000;
    wrap.append(label, document.createElement("br"), area);
    return wrap;
  }
  const set = document.createElement("fieldset");
  const legend = document.createElement("legend");
  legend.textContent = question.text;
  set.appendChild(legend);
  const options = question.kind === "choice" ? question.choices
    : Array.from({ length: question.scale }, (_, k) => k + 1);
  options.forEach((option, k) => {
    const id = `${name}-${k + 1}`;
    const input = document.createElement("input");
    Object.assign(input, { type: "radio", name: question.id, id, value: String(option), required: question.required });
    const label = document.createElement("label");
    label.htmlFor = id;
    let text = String(option);
    if (question.kind === "likert" && question.labels) {
      if (k === 0) text += ` (${question.labels[0]})`;
      if (k === options.length - 1) text += ` (${question.labels[1]})`;
    }
    label.textContent = text;
    label.prepend(input);
    set.appendChild(label);
  });
  return set;
}

function showQuestions(state) {
  $("status").textContent = state.phase === "final" ? "Last questions"
    : `Rule ${state.rule_number} of ${state.rules} is over`;
  $("questions-heading").textContent = state.phase === "final" ? "Before you finish"
    : `About rule ${state.rule_number}`;
  const form = $("question-form");
  form.replaceChildren(...state.questions.map(questionField));
  const submit = document.createElement("button");
  submit.type = "submit";
  submit.id = "submit-answers";
  submit.textContent = "Continue";
  form.appendChild(submit);
  form.dataset.kinds = JSON.stringify(Object.fromEntries(state.questions.map((q) => [q.id, q.kind])));
  const first = form.querySelector("textarea, input");
  if (first) first.focus();
}

$("question-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const kinds = JSON.parse(form.dataset.kinds);
  const answers = {};
  for (const [id, kind] of Object.entries(kinds)) {
    const value = new FormData(form).get(id);
    answers[id] = value === null || value === "" ? null : kind === "likert" ? Number(value) : value;
  }
  let answer;
  try {
    answer = await post("/api/answers", { answers });
  } catch (error) {
    $("question-error").textContent = "The server did not answer; try again.";
    return;
  }
  if (!answer.ok) { $("question-error").textContent = answer.data.error; return; }
  $("question-error").textContent = "";
  feedback("Choose a piece.", "");
  show(answer.data.state);
});

fetch("/api/state").then((reply) => {
  if (reply.status === 401) { location.assign("/"); return null; }
  return reply.json();
}).then((state) => state && show(state));
