"""The reader's training data (no evaluation fact leaks in; loss on answers only), the tokenizer, and the PhantomWiki
loader on a tiny local fixture saved the way `make data-phantomwiki` saves the real one."""

from __future__ import annotations

import random

import pytest

from experiments.dolores.phantomwiki import PhantomWikiDataModule, download, parse_path, split_name
from experiments.dolores.qa_data import (
    OneHopBatches,
    OneHopQADataModule,
    articles_cap,
    draw_example,
    encode_example,
    leak_guard,
    leaked_facts,
)
from experiments.dolores.tokenizer import WordTokenizer
from experiments.dolores.universe import ATTRIBUTES, RELATIONS, Universe, name_pool
from reprolab.cli.errors import ConfigError, DatasetNotFoundError


def test_word_tokenizer_round_trip_and_unknown_word():
    tok, name = WordTokenizer(), name_pool(600)[0]
    ids = tok.encode(f"Q {name} boss ? A")
    assert tok.vocab_size == 627 and len(ids) == 5 and tok.decode(ids) == f"Q {name} boss ? A"
    assert tok.encode("<eos>") == [tok.eos_id] and tok.decode([tok.bos_id, *ids, tok.eos_id]) == f"Q {name} boss ? A"
    with pytest.raises(ConfigError, match="not in the toy universe's vocabulary"):
        tok.encode("Who is Bako?")


def test_no_fact_of_the_evaluation_universe_is_ever_drawn_for_training():
    universe = Universe(50, seed=1)
    forbidden = leak_guard([{"people": 50, "seed": 1}])
    assert forbidden == universe.all_facts() and len(forbidden) == 50 * 4
    rng = random.Random(0)
    # the eval universe's own people as the only training subjects: every fact is at risk of leaking
    people = tuple(universe.people)
    drawn = [f for _ in range(400) for f in draw_example(rng, people, 4, 2, forbidden)[0]]
    assert leaked_facts(drawn, forbidden) == 0
    unguarded = [f for _ in range(400) for f in draw_example(rng, people, 4, 2, set())[0]]
    assert leaked_facts(unguarded, forbidden) > 0          # the guard is what keeps them out


def test_training_targets_are_the_answer_and_eos_only():
    tok, (a, b) = WordTokenizer(), name_pool(600)[:2]
    tokens, is_answer = encode_example(tok, f"{a} boss {b} .", [(a, "boss", b)])
    assert tok.decode(tokens) == f"{a} boss {b} . Q {a} boss {b}"
    assert [tok.words[t] for t, m in zip(tokens, is_answer, strict=True) if m] == [b, "<eos>"]
    x, y = OneHopBatches(tok, 2, 4, 0, "train", set(), 600, 8, 3)[1]
    assert x.shape == y.shape and x.shape[1] <= 255
    answers = y[y != -100]
    assert (answers == tok.eos_id).sum() >= 4 and (answers > tok.eos_id).sum() == (answers == tok.eos_id).sum()


def _articles_per_example(tok, x) -> list[int]:
    """An article states each of its person's facts once, each ending in `.`; questions have none."""
    dot = tok.encode(".")[0]
    return [int((row == dot).sum()) // (len(RELATIONS) + len(ATTRIBUTES)) for row in x]


def test_the_length_curriculum_grows_contexts_from_one_article_and_leaves_evaluation_alone():
    assert [articles_cap(i, 6, 100) for i in (0, 19, 20, 50, 99, 100, 5000)] == [1, 1, 2, 3, 5, 6, 6]
    assert articles_cap(0, 6, 0) == 6
    tok = WordTokenizer(pool=64)
    early = OneHopBatches(tok, 400, 16, 0, "train", set(), 64, 6, 3, articles_ramp=100)
    assert set(_articles_per_example(tok, early[0][0])) == {1}
    late = sum((_articles_per_example(tok, early[i][0]) for i in range(100, 110)), [])
    assert max(late) == 6 and min(late) == 1
    data = OneHopQADataModule(tok, batch_size=16, train_batches=400, max_articles=6, pool=64, articles_ramp=100)
    assert max(_articles_per_example(tok, next(iter(data.val_dataloader()))[0])) > 1
    with pytest.raises(ConfigError, match="articles_ramp"):
        OneHopQADataModule(tok, articles_ramp=-1)
    with pytest.raises(ConfigError, match="articles_ramp"):
        OneHopQADataModule(tok, articles_ramp=True)


def test_the_article_floor_keeps_one_article_contexts_out_of_training_only():
    tok = WordTokenizer(pool=64)
    floored = sum((_articles_per_example(tok, OneHopBatches(tok, 8, 16, 0, "train", set(), 64, 6, 3,
                                                            min_articles=4)[i][0]) for i in range(8)), [])
    assert min(floored) == 4 and max(floored) == 6
    plain = sum((_articles_per_example(tok, OneHopBatches(tok, 8, 16, 0, "train", set(), 64, 6, 3)[i][0])
                 for i in range(8)), [])
    assert min(plain) == 1                                  # the default floor 1 draws one-article contexts
    data = OneHopQADataModule(tok, batch_size=16, train_batches=8, eval_batches=8, max_articles=6, pool=64,
                              min_articles=4)
    assert min(_articles_per_example(tok, next(iter(data.train_dataloader()))[0])) >= 4
    val = sum((_articles_per_example(tok, x) for x, _ in data.val_dataloader()), [])
    assert min(val) == 1                                    # evaluation keeps 1..max_articles
    for bad in (0, 7, True, 2.0):
        with pytest.raises(ConfigError, match="min_articles"):
            OneHopQADataModule(tok, max_articles=6, min_articles=bad)


def test_phantomwiki_questions_parse_into_paths():
    assert parse_path("Who is the nephew of the friend of Dino Beltran?") == ("Dino Beltran", ["friend", "nephew"])
    assert parse_path("What is the hobby of Ann Lee?") == ("Ann Lee", ["hobby"])
    assert parse_path("How many children does Ann Lee have?") is None
    with pytest.raises(ConfigError, match="sizes"):
        split_name(60, 1)


def phantomwiki_fixture(root):
    """A two-article universe saved with datasets.save_to_disk, as download() saves the real splits."""
    datasets = pytest.importorskip("datasets")
    split = split_name(50, 1)
    corpus = [{"title": "Ann Lee", "article": "# Ann Lee\n\nThe friend of Ann Lee is Bo Ray."},
              {"title": "Bo Ray", "article": "# Bo Ray\n\nThe hobby of Bo Ray is chess."}]
    qa = [{"id": "a", "question": "What is the hobby of the friend of Ann Lee?", "answer": ["chess"], "difficulty": 2},
          {"id": "b", "question": "How many friends does Bo Ray have?", "answer": ["0"], "difficulty": 1}]
    datasets.Dataset.from_list(corpus).save_to_disk(str(root / "phantomwiki" / "text-corpus" / split))
    datasets.Dataset.from_list(qa).save_to_disk(str(root / "phantomwiki" / "question-answer" / split))
    return root


def test_phantomwiki_loader_reads_the_saved_splits(tmp_path):
    dm = PhantomWikiDataModule(str(phantomwiki_fixture(tmp_path)), size=50, seed=1)
    dm.setup("test")
    first, second = dm.records
    assert first["subject"] == "Ann Lee" and first["chain"] == ["friend", "hobby"] and first["hops"] == 2
    assert second["chain"] is None and dm.world.has_article("Bo Ray") and "chess" in dm.world.article("Bo Ray")
    with pytest.raises(DatasetNotFoundError, match="make data-phantomwiki"):
        PhantomWikiDataModule(str(tmp_path / "nowhere"), size=50, seed=1).setup("test")


def test_download_saves_where_the_loader_reads(tmp_path):
    datasets = pytest.importorskip("datasets")
    fixture = phantomwiki_fixture(tmp_path / "hub")
    asked = []

    def from_hub(repo, config, split, revision=None):   # stands in for the Hub (no network here)
        asked.append((repo, config, split))
        return datasets.load_from_disk(str(fixture / "phantomwiki" / config / split))

    download(tmp_path / "data", 50, 1, load_dataset=from_hub)
    assert asked == [("kilian-group/phantom-wiki-v1", c, "depth_20_size_50_seed_1") for c in ("text-corpus", "question-answer")]
    dm = PhantomWikiDataModule(str(tmp_path / "data"), size=50, seed=1)
    dm.setup("test")
    assert len(dm.records) == 2
