"""The everyday words of programming: common in every coding project, so weak evidence in any.

Promise: `is_jargon(word)` says whether a lower-case word (or its Porter2 stem) belongs to the
general vocabulary of software work: languages and tools everyone uses (`python`, `git`,
`docker`), what code is made of (`function`, `class`, `string`), what is done to it (`commit`,
`merge`, `deploy`, `test`). A general word list does not know these are everyday *here*: in
English at large "commit" or "struct" is rare, in a coding agent's memory it is in every project.

Hand-written for this project (no data set was derived to make it), and short on purpose: it
holds the words of generic programming questions ("how do I undo the last git commit", "what is
dependency injection"), not a project's own names, which stay strong evidence. Never raises.
"""

from __future__ import annotations

from memory_core.retrieval.stemmer import stem

__all__ = ["is_jargon"]

# A word list reads better as prose than as 260 quoted lines.
_WORDS = frozenset(
    """
abstract access add algorithm allocate api app application apt arg argument array assert async
attribute auth await backend bash binary bit boolean branch brew browser buffer bug build byte cache
call callback cargo case cast char check class cli client clone closure code column command commit
compile compiler component compute concurrency condition config configure connect connection
console const constant constructor container context core count cpu crash create csv curl
data database date debug declare decode default define delete dependency deploy dev develop
dict dictionary directory docker document element encode endpoint engine enum env environment
error event example exception execute exit export expression extend feature fetch field file
filter fix flag float folder format framework frontend function generic get git github global
handle handler hash header heap helper host html http https id implement import index inherit
init input install instance int integer interface item iterate java javascript job json key
keyword lambda language layer library line link lint list load local lock log logic loop main
map memory merge message method middleware mock model module mutex name namespace network node
npm null number object output package page parameter parse patch path performance pip pointer
port post print private process program project promise property protocol public pull push
python query queue react read recursion recursive refactor reference regex register release
remote render repo repository request require response rest result return run runtime rust
schema scope script sdk search server service session set shell size slice socket sort source
sql stack state statement static status step store stream string struct style sync syntax
system table tag task template terminal test thread throw token tool tree type typescript
undo unit update url user value var variable version view virtual void web write yaml
""".split()  # noqa: SIM905
)

_STEMS = frozenset(stem(word) for word in _WORDS) | _WORDS


def is_jargon(word: str) -> bool:
    """Whether `word` (lower case) is one of programming's everyday words, in any inflection."""
    return word in _STEMS or stem(word) in _STEMS
