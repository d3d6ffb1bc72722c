"""A study file of ``zoo gohr serve --study``: what a participant agrees to, plays and answers.

A YAML file such as::

    title: Hidden rules, pilot 2
    consent: {version: "2026-11-01", text: "This is a study of how people discover rules. ..."}
    rules: [{rule: paper/clockwise, boards: 5}, {rule: paper/color_match, boards: 5}]
    order: counterbalanced          # fixed | counterbalanced (Latin square) | random (with seed)
    board: {min_objects: 9}         # an env's board block (default 9 pieces of 4 shapes and 4 colors)
    practice: {rule: paper/color_match, boards: 1}
    rule_questions: [{id: guess, text: "What do you think the rule was?", kind: text}]
    final_questions: [{id: effort, text: "How hard did you try?", kind: likert, scale: 5,
                       labels: ["not at all", "very hard"]}]
    completion: {code: C0DE-1234}   # or {redirect: https://...}

is checked as a run spec is (every problem with its line), by ``zoo validate`` too. Rule orders are
assigned per participant: ``fixed`` plays the rules as listed; ``counterbalanced`` gives the k-th
participant row ``k mod n`` of a balanced Latin square (each rule first equally often, and, for an
even number of rules, each rule just after every other equally often); ``random`` shuffles with a
generator seeded by ``seed`` and the participant's number, so an order can be told again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from zoo import LocatedDocument, SpecError, did_you_mean, load_file

from .experiment import MAX_BOARDS, Stage, _stage

QUESTION_ID = r"[a-z][a-z0-9_]{0,39}"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Consent(_Strict):
    """The text a participant agrees to, and its version (stored with every consent)."""

    version: str = Field(min_length=1, max_length=64, description="the consent text's version, e.g. a date")
    text: str = Field(min_length=1, description="the consent text; paragraphs are separated by blank lines")


class RuleBlock(_Strict):
    rule: str = Field(description="a rule name (zoo gohr rules) or rule file")
    boards: int = Field(5, ge=1, le=MAX_BOARDS, description="boards of this rule")


class Practice(_Strict):
    rule: str = Field(description="the practice rule (its boards are stored, marked practice, and not scored)")
    boards: int = Field(1, ge=1, le=10)


class Question(_Strict):
    """A question: free ``text``, one of ``choices``, or a ``likert`` scale of ``scale`` points."""

    id: str = Field(pattern=QUESTION_ID, description="the answer's column in the exports")
    text: str = Field(min_length=1)
    kind: Literal["text", "choice", "likert"] = "text"
    choices: list[str] | None = Field(None, min_length=2, description="the options of a choice question")
    scale: int = Field(5, ge=2, le=11, description="points of a likert question")
    labels: list[str] | None = Field(None, min_length=2, max_length=2,
                                     description="a likert question's words for its two ends")
    required: bool = True

    @model_validator(mode="after")
    def _fits_kind(self) -> Question:
        if (self.kind == "choice") != (self.choices is not None):
            raise ValueError("choices belong to (and are needed by) a question of kind 'choice'")
        if self.labels is not None and self.kind != "likert":
            raise ValueError("labels belong to a question of kind 'likert'")
        return self

    def check(self, value: Any) -> str | int | None:
        """The answer `value` to this question, or ValueError saying what would be valid."""
        if value in (None, ""):
            if self.required:
                raise ValueError(f"question '{self.id}' needs an answer")
            return None
        if self.kind == "likert":
            if type(value) is not int or not 1 <= value <= self.scale:
                raise ValueError(f"question '{self.id}': give a whole number from 1 to {self.scale}")
            return value
        if not isinstance(value, str) or len(value) > 4000:
            raise ValueError(f"question '{self.id}': give text of at most 4000 characters")
        if self.kind == "choice" and value not in self.choices:
            raise ValueError(f"question '{self.id}': choose one of {', '.join(self.choices)}")
        return value


class Completion(_Strict):
    """What the participant takes back to the recruiting platform: a code to type in, or a redirect."""

    code: str | None = Field(None, min_length=1, max_length=64)
    redirect: str | None = Field(None, pattern=r"https://\S+", description="an https URL to send the participant to")

    @model_validator(mode="after")
    def _one(self) -> Completion:
        if (self.code is None) == (self.redirect is None):
            raise ValueError("give exactly one of code and redirect")
        return self


class StudyFile(_Strict):
    """A study file as written (see the module docstring)."""

    title: str = Field(min_length=1, max_length=200)
    consent: Consent
    rules: list[RuleBlock] = Field(min_length=1, max_length=24)
    order: Literal["fixed", "counterbalanced", "random"] = "fixed"
    seed: int = Field(0, ge=0, description="the seed of random orders")
    board: dict[str, Any] = Field(default_factory=lambda: {"min_objects": 9},
                                  description="the board settings of every board (an env's board block)")
    max_moves: int = Field(100, ge=1, le=10_000, description="a board ends after this many moves")
    practice: Practice | None = None
    rule_questions: list[Question] = Field(default_factory=list, description="asked after each rule")
    final_questions: list[Question] = Field(default_factory=list, description="asked at the end")
    completion: Completion

    @model_validator(mode="after")
    def _distinct(self) -> StudyFile:
        for name, questions in (("rule_questions", self.rule_questions), ("final_questions", self.final_questions)):
            ids = [q.id for q in questions]
            if len(set(ids)) != len(ids):
                raise ValueError(f"{name}: question ids repeat ({', '.join(sorted(ids))})")
        rules = [block.rule for block in self.rules]
        if len(set(rules)) != len(rules):
            raise ValueError("a rule is listed twice; give each rule once with its number of boards")
        return self


DEFAULT_CONSENT = Consent(version="zoo-default-1", text=(
    "This is a study of how people discover rules. You will see boards of colored shapes and four buckets, one "
    "in each corner. Move each piece into a bucket. A hidden rule decides which moves are allowed: an allowed "
    "move takes the piece off the board, a move that is not allowed leaves it where it was. Try to clear each "
    "board with as few disallowed moves as you can; the rule stays the same for several boards, then may change."
    "\n\nTaking part is voluntary and you may stop at any time. We record your moves and their timing under "
    "your participant id, and nothing else."))


class Study:
    """What a server plays: a checked study file, or (``of_stages``) bare rules with the default consent text."""

    def __init__(self, *, title: str, consent: Consent, rule_stages: list[Stage], practice: Stage | None = None,
                 order: str = "fixed", seed: int = 0, rule_questions: list[Question] = (),
                 final_questions: list[Question] = (), completion: Completion | None = None, source: str = ""):
        self.title, self.consent, self.rule_stages, self.practice = title, consent, rule_stages, practice
        self.order_kind, self.seed, self.completion, self.source = order, seed, completion, source
        self.rule_questions, self.final_questions = list(rule_questions), list(final_questions)

    @classmethod
    def from_file(cls, spec: StudyFile, source: str) -> Study:
        stages = [_stage(block.rule, block.boards, spec.board, spec.max_moves, f"{source}: rules[{k}]")
                  for k, block in enumerate(spec.rules)]
        practice = None
        if spec.practice is not None:
            stage = _stage(spec.practice.rule, spec.practice.boards, spec.board, spec.max_moves, f"{source}: practice")
            practice = Stage(stage.rule, stage.boards, stage.board_ranges, stage.max_moves, practice=True)
        return cls(title=spec.title, consent=spec.consent, rule_stages=stages, practice=practice, order=spec.order,
                   seed=spec.seed, rule_questions=spec.rule_questions, final_questions=spec.final_questions,
                   completion=spec.completion, source=source)

    @classmethod
    def of_stages(cls, stages: list[Stage]) -> Study:
        return cls(title="The Game of Hidden Rules", consent=DEFAULT_CONSENT, rule_stages=stages)

    def order(self, number: int) -> list[int]:
        """The rule order (indices into ``rule_stages``) of the `number`-th participant (0-based)."""
        n = len(self.rule_stages)
        if self.order_kind == "fixed":
            return list(range(n))
        if self.order_kind == "random":
            return [int(k) for k in np.random.default_rng([self.seed, number]).permutation(n)]
        rows = balanced_latin_square(n)
        return rows[number % len(rows)]

    def stages(self, order: list[int]) -> list[Stage]:
        """The stages a participant with rule order `order` plays: the practice, then the rules."""
        return ([self.practice] if self.practice else []) + [self.rule_stages[k] for k in order]


def balanced_latin_square(n: int) -> list[list[int]]:
    """The rows of a balanced Latin square of `n` conditions (Williams' design): every condition once in every
    position; for even `n` each ordered pair of neighbours once, for odd `n` the rows and their mirrors."""
    first = [0]
    low, high = 1, n - 1
    while len(first) < n:
        first.append(low)
        low += 1
        if len(first) < n:
            first.append(high)
            high -= 1
    rows = [[(c + shift) % n for c in first] for shift in range(n)]
    return rows if n % 2 == 0 else rows + [row[::-1] for row in rows]


def _problem(document: LocatedDocument, error: dict) -> Any:
    loc = tuple(error["loc"])
    if error["type"] == "extra_forbidden":
        model: Any = StudyFile
        for part in loc[:-1]:
            if isinstance(part, int):
                continue
            annotation = model.model_fields[part].annotation
            inner = [a for a in getattr(annotation, "__args__", (annotation,)) if isinstance(a, type)
                     and issubclass(a, BaseModel)]
            model = inner[0] if inner else None
            if model is None:
                break
        valid = sorted(model.model_fields) if model else []
        return document.problem(loc, f"unknown field '{loc[-1]}'{did_you_mean(str(loc[-1]), valid)}; "
                                     f"valid fields: {', '.join(valid)}")
    if error["type"] == "missing":
        return document.problem(loc, "required field is missing")
    return document.problem(loc, error["msg"].removeprefix("Value error, "))


def load_study(path: Path) -> Study:
    """Read and check a study file (SpecError with every problem and its line, or ZooError for a bad rule)."""
    document = load_file(path)
    if not isinstance(document.data, dict):
        raise SpecError([document.problem((), "a study file is a mapping with title, consent, rules and completion")])
    try:
        spec = StudyFile.model_validate(document.data)
    except ValidationError as exc:
        raise SpecError([_problem(document, error) for error in exc.errors()]) from None
    return Study.from_file(spec, str(path))


def validate_study_file(path: Path, registry: Any, build: bool) -> str:
    """`zoo validate` of a study file: one line saying what it plays."""
    study = load_study(path)
    practice = f", practice {study.practice.rule}" if study.practice else ""
    return (f"{study.title}: {len(study.rule_stages)} rule(s) ({study.order_kind}){practice}, "
            f"{len(study.rule_questions)} + {len(study.final_questions)} question(s)")
