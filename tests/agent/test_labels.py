"""prompts/labels.yaml: every language says everything, and needs no blank English does not fill."""

from __future__ import annotations

import string

from agent.labels import Labels
from agent.prompts import load_yaml


def _blanks(value: object) -> set[str]:
    if not isinstance(value, str):
        return set()
    return {name for _, name, _, _ in string.Formatter().parse(value) if name}


def test_every_language_has_every_label_and_no_blank_of_its_own():
    table = load_yaml("labels.yaml")
    english = table["en"]
    for lang, words in table.items():
        assert set(words) == set(english), lang
        for key, value in words.items():
            # A language may leave a blank unused (Chinese has no plural ending), never add one.
            assert _blanks(value) <= _blanks(english[key]), (lang, key)
            assert _blanks(value) >= _blanks(english[key]) - {"plural"}, (lang, key)
        assert len(words["depth_names"]) == 5, lang
        for table in (key for key, value in english.items() if isinstance(value, dict)):
            assert set(words[table]) == set(english[table]), (lang, table)


def test_an_unknown_language_reads_english_and_an_unknown_status_is_shown_as_it_is():
    assert Labels("fr")("topics") == Labels("en")("topics") == "Topics"
    assert Labels("zh").status("finished") == "已完成"
    assert Labels("zh").status("archived") == "archived"
    assert Labels("zh").name("sections", "algorithm") == "算法" and Labels("zh").name("sections", "new") == "new"
    assert Labels("zh").listing("shown") == "答到的：" and Labels("en").listing("shown") == "Shown:"


def test_a_reason_speaks_to_you_not_of_the_candidate():
    """Everything else says "you"/"你"; the reason for "I don't know" said "the candidate"."""
    from agent.judge.scoring import reason_for
    from agent.state import Flag
    from knowledge.bank import load_bank

    question = load_bank()["algo-07"]
    missed = [kp.id for kp in question.key_points]
    english = reason_for(question, 0, [], missed, [Flag.dont_know])
    chinese = reason_for(question, 0, [], missed, [Flag.dont_know], lang="zh")
    assert "you said you did not know" in english and "candidate" not in english
    assert "你表示不知道" in chinese and "候选人" not in chinese


def test_every_topic_of_the_bank_has_a_name_in_every_language():
    """A Chinese session listed its topics by their English ids ("hyperparameters, rollout")."""
    from knowledge.models import TOPICS

    for lang, words in load_yaml("labels.yaml").items():
        assert set(words["topic_names"]) == TOPICS, lang
    chinese = Labels("zh")
    assert chinese.topics(["hyperparameters", "rollout"]) == "超参数、rollout 生成"
    assert Labels("en").topics(["hyperparameters", "rollout"]) == "hyperparameters, rollout"


def test_an_aside_after_a_chinese_sentence_is_in_full_width_brackets_with_no_space():
    """ "…不等）。 (第 1 层)": ASCII brackets after a space, after a Chinese full stop."""
    assert "不等）。" + Labels("zh").level(1) == "不等）。（第 1 层）"
    assert "varies." + Labels("en").level(1, hinted=True) == "varies. (level 1, with a hint)"
