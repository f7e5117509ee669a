"""reprolab.data.fetch offline: a loopback HTTP server over local files stands in for the public URLs (torchvision's
downloader needs a Content-Length, which file:// lacks); the registry's digests are those of the shared copies;
derived files are byte for byte the shared ones; errors name the folder and the make target."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import re
import shutil
import tarfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from reprolab.cli.errors import ReprolabError
from reprolab.data import derived
from reprolab.data.fetch import REGISTRY, Dataset, fetch, folder_digest, main, missing

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def serve(tmp_path):
    """`serve(path)` -> an http://127.0.0.1 URL of a file under tmp_path (a server on the loopback, no network)."""
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a: None
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield lambda path: f"http://127.0.0.1:{server.server_port}/{Path(path).relative_to(tmp_path).as_posix()}"
    server.shutdown()
    server.server_close()


def shared(data_dir: Path, name: str) -> Path:
    if not (data_dir / name).is_dir():
        pytest.skip(f"{data_dir / name} is absent")
    return data_dir / name


def with_local_files(name: str, source: Path, serve) -> dict[str, Dataset]:
    """The registry, with `name`'s file URLs pointing at the same relative paths under `source`."""
    entry = REGISTRY[name]
    files = {rel: serve(source / rel) for rel in entry.files}
    return {**REGISTRY, name: dataclasses.replace(entry, files=files)}


def test_a_single_file_is_fetched_checked_then_only_checked(tmp_path, serve):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "input.txt").write_text("to be or not\n")
    file_digest = hashlib.sha256(b"to be or not\n").hexdigest()
    entry = Dataset(hashlib.sha256(f"{file_digest}  input.txt".encode()).hexdigest(), "a toy",
                    {"input.txt": serve(tmp_path / "src" / "input.txt")})
    out = fetch("toy", tmp_path / "data", {"toy": entry})
    assert (out / "input.txt").read_text() == "to be or not\n" and out == tmp_path / "data" / "toy"
    (tmp_path / "src" / "input.txt").unlink()   # a second call checks what is there, no download
    assert fetch("toy", tmp_path / "data", {"toy": entry}) == out
    (out / "input.txt").write_text("tampered\n")
    with pytest.raises(ReprolabError, match=r"does not match the registered toy .*move the folder aside"):
        fetch("toy", tmp_path / "data", {"toy": entry})


def test_a_download_that_does_not_match_leaves_no_folder(tmp_path, serve):
    (tmp_path / "input.txt").write_text("other bytes\n")
    entry = Dataset("0" * 64, "a toy", {"input.txt": serve(tmp_path / "input.txt")})
    with pytest.raises(ReprolabError, match="does not match"):
        fetch("toy", tmp_path / "data", {"toy": entry})
    assert not (tmp_path / "data" / "toy").exists() and not list((tmp_path / "data").iterdir())


def test_a_failed_download_names_the_url_and_leaves_no_folder(tmp_path, serve):
    url = serve(tmp_path / "not-there.txt")
    with pytest.raises(ReprolabError, match=f"could not download {re.escape(url)} .*404"):
        fetch("toy", tmp_path / "data", {"toy": Dataset("0" * 64, "a toy", {"input.txt": url})})
    assert not list((tmp_path / "data").iterdir())


def test_unknown_name_lists_the_registry():
    with pytest.raises(ReprolabError, match="no dataset 'nope' to fetch; known: .*tinyshakespeare"):
        fetch("nope")


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_registry_digest_is_the_shared_copy(name, data_dir):
    assert folder_digest(shared(data_dir, name)) == REGISTRY[name].sha256


@pytest.mark.parametrize("name", ["tinyshakespeare", "energy-efficiency-enb2012", "fineweb-edu-sample150",
                                  "protac-8k", "protac-degradation-db", "mitbih-100"])
def test_file_datasets_fetched_from_local_copies_match_the_registry(name, data_dir, tmp_path, serve):
    """Downloads (torchvision's download_url) + derived files reproduce the registered digest."""
    source = tmp_path / "source"
    shutil.copytree(shared(data_dir, name), source)
    out = fetch(name, tmp_path / "data", with_local_files(name, source, serve))
    assert folder_digest(out) == REGISTRY[name].sha256


def _tar(folder: Path, archive: Path, top: str) -> Path:
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=top)
    return archive


def test_cifar_subset_is_picked_from_a_repository_archive(data_dir, tmp_path, serve):
    """A fake repository archive (the shared subset plus files past the cut) gives back exactly the subset."""
    repo = tmp_path / "repo"
    shutil.copytree(shared(data_dir, "cifar10-jpeg-subset"), repo, ignore=shutil.ignore_patterns("SOURCE.md"))
    shutil.copyfile(repo / "train" / "cat" / "0000.jpg", repo / "train" / "cat" / "0200.jpg")   # beyond 200
    shutil.copyfile(repo / "test" / "dog" / "0000.jpg", repo / "test" / "dog" / "0100.jpg")     # beyond 100
    url = serve(_tar(repo, tmp_path / "cifar.tar.gz", "CIFAR-10-images-d7d0561"))
    registry = {"cifar10-jpeg-subset": dataclasses.replace(REGISTRY["cifar10-jpeg-subset"], archive=url)}
    out = fetch("cifar10-jpeg-subset", tmp_path / "data", registry)
    assert len(list(out.rglob("*.jpg"))) == 3000 and not (out / "train" / "cat" / "0200.jpg").exists()


def test_depth_sr_takes_every_ninth_rgbdd_pair(data_dir, tmp_path, serve):
    """RawDatasets with RGBDD = the 45 shared pairs, each followed by 8 others: the pick is the shared 45."""
    source = shared(data_dir, "depth-sr")
    raw = tmp_path / "repo" / "RawDatasets"
    for name in ("Middlebury", "Lu", "NYUDepthv2_Test", "RGBDD_Test_Realscene"):
        shutil.copytree(source / name, raw / name)
    for rgb in sorted((source / "RGBDD_subset" / "RGB").iterdir()):
        stamp = rgb.name.removesuffix("_RGB.jpg")
        depth = source / "RGBDD_subset" / "Depth" / f"{stamp}_HR_gt.png"
        for k, s in enumerate([stamp] + [f"{stamp}a{i}" for i in range(8)]):
            (raw / "RGBDD" / "RGB").mkdir(parents=True, exist_ok=True)
            (raw / "RGBDD" / "Depth").mkdir(parents=True, exist_ok=True)
            (raw / "RGBDD" / "RGB" / f"{s}_RGB.jpg").write_bytes(rgb.read_bytes() if k == 0 else b"other")
            (raw / "RGBDD" / "Depth" / f"{s}_HR_gt.png").write_bytes(depth.read_bytes() if k == 0 else b"other")
    url = serve(_tar(tmp_path / "repo", tmp_path / "dct.tar.gz", "GDSR-DCTNet-5243875"))
    out = fetch("depth-sr", tmp_path / "data", {"depth-sr": dataclasses.replace(REGISTRY["depth-sr"], archive=url)})
    assert folder_digest(out) == REGISTRY["depth-sr"].sha256


def test_sachs_is_read_out_of_the_wheel(data_dir, tmp_path, serve):
    """A zip laid out as the cdt wheel (cdt/data/resources/) gives the registered files."""
    resources = tmp_path / "wheel" / "cdt" / "data" / "resources"
    resources.mkdir(parents=True)
    for name in ("cyto_full_data.csv", "cyto_full_target.csv"):
        shutil.copyfile(shared(data_dir, "sachs") / name, resources / name)
    wheel = shutil.make_archive(str(tmp_path / "cdt"), "zip", tmp_path / "wheel")
    entry = dataclasses.replace(REGISTRY["sachs"], archive=serve(wheel))
    assert folder_digest(fetch("sachs", tmp_path / "data", {"sachs": entry})) == REGISTRY["sachs"].sha256


def test_enb_clean_by_hand(tmp_path):
    (tmp_path / "ENB2012_data.csv").write_text("X1,Y1,,\n0.98,15.55,,\n,,,\n,,,\n")
    derived.enb_clean(tmp_path)
    assert (tmp_path / "energy_efficiency_clean.csv").read_text() == "X1,Y1\n0.98,15.55\n"


def test_missing_data_error_names_the_target_and_the_path(tmp_path, monkeypatch):
    monkeypatch.setenv("REPROLAB_DATA", str(tmp_path / "default"))
    assert str(missing("sachs", tmp_path / "default" / "sachs", "Sachs flow cytometry")) == (
        f"data_dir '{tmp_path}/default/sachs' has no Sachs flow cytometry; run `make data-sachs` (fetches and checks "
        f"it into {tmp_path}/default/sachs) or set REPROLAB_DATA or paths.data_dir to a folder holding sachs/")
    # paths.data_dir=<elsewhere>: the target fetches where the config looks
    assert str(missing("sachs", tmp_path / "mine" / "sachs")) == (
        f"data_dir '{tmp_path}/mine/sachs' has no sachs; run `make data-sachs DATA={tmp_path}/mine` (fetches and checks "
        f"it into {tmp_path}/mine/sachs) or set REPROLAB_DATA or paths.data_dir to a folder holding sachs/")


def test_every_registered_dataset_has_a_make_target_and_a_list_line(capsys):
    targets = set(re.findall(r"^data-([a-z0-9-]+):.*\n\t\$\(FETCH\) (\S+)", (REPO / "data.mk").read_text(), re.M))
    assert targets == {(name, name) for name in REGISTRY}
    assert "include data.mk" in (REPO / "Makefile").read_text()
    main(["--list"])
    listed = capsys.readouterr().out
    assert all(name in listed for name in REGISTRY)
