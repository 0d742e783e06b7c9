"""The library's view of a question: its parts, key points by level (each with its part), the
misconceptions with corrections and the model answer."""

from __future__ import annotations

import sys
from pathlib import Path

from agent.learner.library import question_markdown
from knowledge.models import Question

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "knowledge"))
from test_wording_check import algo_07_with


def test_parts_come_in_order_and_each_key_point_names_its_part():
    question = Question.model_validate(algo_07_with([]))
    text = question_markdown(question, "en")
    assert text.index("1. How clipping works in PPO") < text.index("4. How CISPO differs")
    assert "*(part: How CISPO differs)*" in text and "### Level 4: expert" in text
    assert question.misconceptions[0].correction in text
    zh = question_markdown(question, "zh")
    assert "1. PPO 的 clipping 如何工作" in zh


def test_a_chinese_page_has_its_headings_and_words_in_chinese():
    """The bank's Chinese texts were shown under English headings ("Level 4: expert", "Wrong:")."""
    zh = question_markdown(Question.model_validate(algo_07_with([])), "zh")
    assert "*（所属部分：CISPO 有什么不同）*" in zh and "### 第 4 层：专家水平" in zh
    for heading in ("## 题目各部分", "## 各层级的要点", "## 误解", "## 参考答案"):
        assert heading in zh, heading
    assert "**错误：**" in zh and "**更正：**" in zh and " · 算法 · PPO、" in zh
    english = ("Parts", "Key points", "Level", "part:", "Wrong", "Correction", "Model answer", "difficulty")
    assert [word for word in english if word in zh] == []
