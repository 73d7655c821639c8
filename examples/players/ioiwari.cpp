// A sample Ioiwari player (IOI 2001) in C++: player 1 against `tabula referee ioiwari`.
//
// The protocol is the IOI task's own. The referee writes one line with the
// beads of pits 1..7 (clockwise); then player 1 (you) and player 2 alternate:
// you write the label 1..7 of a non-empty pit, the referee writes player 2's
// pit. The game is over once every pit is empty; the referee then closes your
// input. Write one line per move and flush it (`std::endl` flushes).
//
// This player is greedy: it plays the move that banks the most beads now
// (ties to the lowest label). Replace `choose` with your own strategy.
//
// Build and run it:
//   g++ -O2 -o ioiwari examples/players/ioiwari.cpp
//   tabula referee ioiwari --player ./ioiwari --strict
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

const int CAP = 5;  // the most beads a pit holds (the IOI game's 5)

// Plays `pit` (0-based) on `pits`; returns the beads banked by the mover
// minus those given to the opponent.
int sow(std::vector<int>& pits, int pit) {
    int n = pits.size(), hand = pits[pit], at = pit, net = 0;
    pits[pit] = 0;
    while (hand > 1) {
        at = (at + 1) % n;
        if (pits[at] == CAP) {  // a full pit pays a bead to the mover's bank
            pits[at]--;
            net++;
        } else {
            pits[at]++;
            hand--;
        }
    }
    at = (at + 1) % n;
    if (pits[at] >= 1 && pits[at] < CAP) {  // the last bead takes the pit to the bank
        net += pits[at] + 1;
        pits[at] = 0;
    } else {  // an empty or full pit: the last bead goes to the opponent
        net--;
    }
    return net;
}

// The non-empty pit (0-based) that banks the most beads net now.
int choose(const std::vector<int>& pits) {
    int best = -1, best_gain = 0;
    for (int p = 0; p < (int)pits.size(); p++) {
        if (pits[p] == 0) continue;
        std::vector<int> copy = pits;
        int gain = sow(copy, p);
        if (best < 0 || gain > best_gain) best = p, best_gain = gain;
    }
    return best;
}

bool empty(const std::vector<int>& pits) {
    for (int beads : pits)
        if (beads) return false;
    return true;
}

int main() {
    std::string line;
    if (!std::getline(std::cin, line)) return 0;
    std::istringstream words(line);
    std::vector<int> pits;  // pit 1 first; a variant's ring may be longer
    for (int beads; words >> beads;) pits.push_back(beads);
    while (!empty(pits)) {
        int pit = choose(pits);
        std::cout << pit + 1 << std::endl;  // one line per move, flushed
        sow(pits, pit);
        if (empty(pits)) break;
        int theirs;
        if (!(std::cin >> theirs)) break;  // the referee ended the game
        sow(pits, theirs - 1);            // player 2's move
    }
    return 0;
}
