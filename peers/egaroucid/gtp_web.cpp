// A GTP front for Egaroucid's web engine (src/web/: its embedded evaluation and opening book): the board kept from
// `clear_board`, `play` and `genmove`, the engine asked at the level given as the first argument. What the arena
// sends: boardsize, clear_board, play COLOUR MOVE|pass, genmove COLOUR; an illegal `play` is refused.
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include "web/ai.hpp"

static const uint64_t BLACK_START = 0x0000000810000000ULL, WHITE_START = 0x0000001008000000ULL;

int main(int argc, char **argv) {
    int level = argc > 1 ? std::atoi(argv[1]) : 10;
    board_init();
    mobility_init();
    stability_init();
    parent_transpose_table.first_init();
    child_transpose_table.first_init();
    evaluate_init();
    book_init();
    uint64_t black = BLACK_START, white = WHITE_START;
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream words(line);
        std::string command, reply;
        words >> command;
        if (command.empty()) continue;
        bool done = true;
        if (command == "quit") {
            std::cout << "=\n\n" << std::flush;
            break;
        } else if (command == "boardsize") {
            int size = 0;
            words >> size;
            done = size == HW;
            if (!done) reply = "unacceptable size";
        } else if (command == "clear_board") {
            black = BLACK_START;
            white = WHITE_START;
        } else if (command == "name") {
            reply = "Egaroucid (web engine)";
        } else if (command == "protocol_version") {
            reply = "2";
        } else if (command == "play" || command == "genmove") {
            std::string colour, move;
            words >> colour >> move;
            bool is_black = !colour.empty() && std::tolower(colour[0]) == 'b';
            Board board;
            board.player = is_black ? black : white;
            board.opponent = is_black ? white : black;
            int cell = -1;  // Egaroucid's square index: 63 at a1, 0 at h8.
            if (command == "genmove") {
                if (board.get_legal() != 0ULL) cell = ai(board, level, true, false, false).policy;
                reply = cell < 0 ? "pass" : idx_to_coord(cell);
            } else if (move != "pass" && move != "PASS") {
                int x = move.empty() ? -1 : std::tolower(move[0]) - 'a';
                int y = move.size() < 2 ? -1 : std::atoi(move.c_str() + 1) - 1;
                if (x >= 0 && x < HW && y >= 0 && y < HW) cell = HW2_M1 - (y * HW + x);
                if (cell < 0 || !(board.get_legal() & (1ULL << cell))) {
                    done = false;
                    reply = "illegal move";
                }
            }
            if (done && cell >= 0) {
                Flip flip;
                calc_flip(&flip, &board, cell);
                board.move_board(&flip);  // The mover's discs are now `opponent`.
                (is_black ? black : white) = board.opponent;
                (is_black ? white : black) = board.player;
            }
        } else {
            done = false;
            reply = "unknown command";
        }
        std::cout << (done ? "= " : "? ") << reply << "\n\n" << std::flush;
    }
    return 0;
}
