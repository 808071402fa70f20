"""A three-chapter farm story with one planted slip (a huge black dog is a little white terrier in chapter 3) and the
finding a capable model would report about it: the continuity reader's tests (integration and browser) share them."""
from __future__ import annotations

BOOK = """The Farm

Chapter 1

Bob was a huge black dog, half bloodhound, who slept by the barn door. Mary Ellis kept the farm with her brother Tom.

Chapter 2

Tom drove the cart to town and sold the apples. Mary fed the hens and waited for the rain.

Chapter 3

The little white terrier trotted after Mary into the kitchen. Bob lay down under the table and sighed.
"""

FOUND = {"kind": "attribute", "entity": "Bob", "sentence": "The little white terrier trotted after Mary into the "
         "kitchen.", "earlier": "Bob was a huge black dog, half bloodhound, who slept by the barn door.",
         "earlier_chapter": 1, "why": "a huge black bloodhound is now a little white terrier"}
