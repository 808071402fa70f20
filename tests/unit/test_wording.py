from core.wording import counted


def test_one_is_singular_and_others_plural() -> None:
    assert counted(1, "chapter") == "1 chapter"
    assert counted(0, "chapter") == "0 chapters"
    assert counted(1204, "word") == "1,204 words"
    assert counted(2, "summary", "summaries") == "2 summaries"
