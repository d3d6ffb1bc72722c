// The play page: draws the board the server sends, and sends each drop as a move.
// The browser never knows the rule: the server judges every move.
"use strict";

const COLORS = { RED: "#dc2828", BLACK: "#1e1e1e", BLUE: "#285adc", YELLOW: "#f0c814" };
const SHAPES = {
  SQUARE: '<rect x="6" y="6" width="32" height="32"/>',
  CIRCLE: '<circle cx="22" cy="22" r="17"/>',
  TRIANGLE: '<polygon points="22,4 40,38 4,38"/>',
  STAR: '<polygon points="22,2 27,16 42,16 30,25 34,40 22,31 10,40 14,25 2,16 17,16"/>',
};

function pieceSvg(piece) {
  const shape = SHAPES[piece.shape] || '<rect x="6" y="6" width="32" height="32" rx="8"/>';
  const fill = COLORS[piece.color] || "#999";
  return `<div class="piece" draggable="true" data-id="${piece.id}" id="piece-${piece.id}"
    aria-label="${piece.color} ${piece.shape}"><svg viewBox="0 0 44 44">
    <g fill="${fill}" stroke="#000" stroke-width="1">${shape}</g></svg></div>`;
}

function drawBoard(state) {
  const board = document.getElementById("board");
  board.innerHTML = "";
  const at = new Map(state.pieces.map((p) => [`${p.x},${p.y}`, p]));
  for (let y = 6; y >= 1; y--) {
    for (let x = 1; x <= 6; x++) {
      const cell = document.createElement("div");
      cell.className = "cell";
      const piece = at.get(`${x},${y}`);
      if (piece) cell.innerHTML = pieceSvg(piece);
      board.appendChild(cell);
    }
  }
  for (const piece of board.querySelectorAll(".piece")) {
    piece.addEventListener("dragstart", (event) => event.dataTransfer.setData("text/plain", piece.dataset.id));
  }
}

function show(state) {
  if (state.finished) { location.assign("/done"); return; }
  document.getElementById("status").textContent =
    `Rule ${state.stage} of ${state.stages} · board ${state.board} of ${state.boards} · ` +
    `moves ${state.moves} · errors ${state.errors}`;
  drawBoard(state);
}

function feedback(text, verdict) {
  const line = document.getElementById("feedback");
  line.textContent = text;
  line.className = `feedback ${verdict}`;
}

async function send(piece, bucket) {
  feedback("…", "");
  let reply, data;
  try {
    reply = await fetch("/api/move", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ piece, bucket }),
    });
    data = await reply.json();
  } catch (error) {
    feedback("The server did not answer. Try again.", "denied");
    return;
  }
  if (!reply.ok) { feedback(data.error, "denied"); return; }
  if (data.state.finished) { location.assign("/done"); return; }
  const target = document.getElementById(`bucket-${bucket}`);
  target.classList.remove("accepted", "denied");
  target.classList.add(data.accepted ? "accepted" : "denied");
  let text = data.accepted ? "Accepted." : "Not accepted: the piece stays.";
  if (data.board_over) {
    text += ` Board over: ${data.board_over.moves} moves, ${data.board_over.errors} errors. Here is a new board.`;
  }
  feedback(text, data.accepted ? "accepted" : "denied");
  show(data.state);
}

for (const bucket of document.querySelectorAll(".bucket")) {
  bucket.addEventListener("dragover", (event) => { event.preventDefault(); bucket.classList.add("over"); });
  bucket.addEventListener("dragleave", () => bucket.classList.remove("over"));
  bucket.addEventListener("drop", (event) => {
    event.preventDefault();
    bucket.classList.remove("over");
    const piece = Number(event.dataTransfer.getData("text/plain"));
    send(piece, Number(bucket.dataset.bucket));
  });
}

fetch("/api/state").then((reply) => {
  if (reply.status === 401) { location.assign("/"); return null; }
  return reply.json();
}).then((state) => state && show(state));
