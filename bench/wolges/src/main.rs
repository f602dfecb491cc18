// Monoscrabble best-move timing with wolges (bench/wolges_compare.py runs this).
//
// Usage: wolges-monoscrabble build WORDS.txt OUT.kwg
//        wolges-monoscrabble time LEX.kwg POSITIONS.txt [--passes N] [--fresh]
//
// `build`: a KWG (GADDAG + DAWG) from one upper-case word a line (Ä Ö Ü letters of
// their own), German alphabet.
// `time`: POSITIONS.txt has one position a line: the 15 board rows joined by "/"
// ("." empty, upper case a tile, lower case a Blanko), a space, the rack ("?" a
// Blanko); bench/wolges_compare.py writes it from bench/monoscrabble_positions.json.
// Per position and pass, the CPU time (CLOCK_PROCESS_CPUTIME_ID) of
// wolges' best-move search (gen_moves_unfiltered, max_gen 1, no leave values, no
// exchanges) and the best score. Prints one line per position: index, score,
// then the CPU nanoseconds of each pass. `--fresh`: a new generator per position
// (no cross-sets carried over from the previous position); the default reuses one
// generator over the positions in order, as wolges does in a game.

use wolges::{alphabet, display, game_config, klv, kwg, movegen};

// Monoscrabble's premium map (bot/games/monoscrabble/board.py), checked against
// wolges' standard layout at start-up.
const PREMIUM_MAP: [&str; 15] = [
    "T..d...T...d..T",
    ".D...t...t...D.",
    "..D...d.d...D..",
    "d..D...d...D..d",
    "....D.....D....",
    ".t...t...t...t.",
    "..d...d.d...d..",
    "T..d...*...d..T",
    "..d...d.d...d..",
    ".t...t...t...t.",
    "....D.....D....",
    "d..D...d...D..d",
    "..D...d.d...D..",
    ".D...t...t...D.",
    "T..d...T...d..T",
];

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

unsafe extern "C" {
    fn clock_gettime(clk: i32, ts: *mut Timespec) -> i32;
}

const CLOCK_PROCESS_CPUTIME_ID: i32 = 2; // Linux

fn cpu_ns() -> i64 {
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec * 1_000_000_000 + ts.tv_nsec
}

fn check_layout(cfg: &game_config::GameConfig) {
    let prem = cfg.board_layout().premiums();
    for (r, row) in PREMIUM_MAP.iter().enumerate() {
        for (c, ch) in row.chars().enumerate() {
            let (lm, wm) = match ch {
                '.' => (1, 1),
                'd' => (2, 1),
                't' => (3, 1),
                'D' | '*' => (1, 2),
                'T' => (1, 3),
                _ => unreachable!(),
            };
            let p = &prem[r * 15 + c];
            assert_eq!((p.tile_multiplier, p.word_multiplier), (lm, wm), "premium {r},{c}");
        }
    }
    let a = cfg.alphabet();
    // Monoscrabble's values (bot/games/monoscrabble/tiles.py)
    let values = [
        ("A", 1), ("Ä", 6), ("B", 3), ("C", 4), ("D", 1), ("E", 1), ("F", 4), ("G", 2),
        ("H", 2), ("I", 1), ("J", 6), ("K", 4), ("L", 2), ("M", 3), ("N", 1), ("O", 2),
        ("Ö", 8), ("P", 4), ("Q", 10), ("R", 1), ("S", 1), ("T", 1), ("U", 1), ("Ü", 6),
        ("V", 6), ("W", 3), ("X", 8), ("Y", 10), ("Z", 3),
    ];
    assert_eq!(a.len() as usize, values.len() + 1);
    for (i, (label, v)) in values.iter().enumerate() {
        assert_eq!(a.of_rack(i as u8 + 1), Some(*label));
        assert_eq!(a.score(i as u8 + 1), *v as i8, "value of {label}");
    }
    assert_eq!(a.score(0), 0);
}

fn fen(rows: &[String]) -> String {
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        let mut empties = 0;
        for ch in row.chars() {
            if ch == '.' {
                empties += 1;
            } else {
                if empties > 0 {
                    out.push_str(&empties.to_string());
                    empties = 0;
                }
                out.push(ch);
            }
        }
        if empties > 0 {
            out.push_str(&empties.to_string());
        }
    }
    out
}

fn parse_rack(alphabet: &alphabet::Alphabet, rack_str: &str) -> Vec<u8> {
    let reader = alphabet::AlphabetReader::new_for_racks(alphabet);
    let sb = rack_str.as_bytes();
    let mut rack = Vec::new();
    let mut ix = 0;
    while ix < sb.len() {
        let (tile, next_ix) = reader
            .next_tile(sb, ix)
            .unwrap_or_else(|| panic!("bad tile in rack {rack_str:?}"));
        rack.push(tile);
        ix = next_ix;
    }
    rack
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let cfg = game_config::make_monoscrabble_game_config();
    check_layout(&cfg);
    let alphabet = cfg.alphabet();
    if args.len() >= 4 && args[1] == "build" {
        let text = std::fs::read_to_string(&args[2])?;
        let reader = alphabet::AlphabetReader::new_for_words(alphabet);
        let mut words = Vec::new();
        for line in text.lines() {
            let mut v = Vec::new();
            let sb = line.trim().as_bytes();
            let mut ix = 0;
            while ix < sb.len() {
                let (t, nx) = reader
                    .next_tile(sb, ix)
                    .unwrap_or_else(|| panic!("bad letter in {line:?}"));
                v.push(t);
                ix = nx;
            }
            if !v.is_empty() {
                words.push(v[..].into());
            }
        }
        words.sort_unstable();
        words.dedup();
        let bytes = wolges::build::build(
            wolges::build::BuildContent::Gaddawg,
            wolges::build::BuildLayout::Wolges,
            &words,
        )?;
        std::fs::write(&args[3], bytes)?;
        eprintln!("kwg: {} words", words.len());
        return Ok(());
    }
    if args.len() < 4 || args[1] != "time" {
        eprintln!("usage: build WORDS OUT.kwg | time LEX.kwg POSITIONS.txt [--passes N] [--fresh]");
        std::process::exit(2);
    }
    let kwg = kwg::Kwg::<kwg::Node22>::from_bytes_alloc(&std::fs::read(&args[2])?);
    let klv = klv::Klv::<kwg::Node22>::from_bytes_alloc(klv::EMPTY_KLV_BYTES);
    let positions = std::fs::read_to_string(&args[3])?;
    let mut passes = 3usize;
    let mut fresh = false;
    let mut i = 4;
    while i < args.len() {
        match args[i].as_str() {
            "--passes" => {
                passes = args[i + 1].parse()?;
                i += 1;
            }
            "--fresh" => fresh = true,
            a => panic!("unknown argument {a}"),
        }
        i += 1;
    }
    let mut boards = Vec::new();
    let mut racks = Vec::new();
    {
        let mut parser = display::BoardFenParser::new(alphabet, cfg.board_layout());
        for line in positions.lines().filter(|l| !l.trim().is_empty()) {
            let (board, rack) = line.split_once(' ').unwrap_or((line, ""));
            let rows: Vec<String> = board.split('/').map(|r| r.to_string()).collect();
            assert_eq!(rows.len(), 15, "15 rows: {line:?}");
            boards.push(parser.parse(&fen(&rows))?.to_vec());
            racks.push(parse_rack(alphabet, rack.trim()));
        }
    }
    let n = boards.len();
    let mut scores = vec![None; n];
    let mut times = vec![Vec::new(); n];
    let mut mg = movegen::KurniaMoveGenerator::new(&cfg);
    for _ in 0..passes {
        for k in 0..n {
            if fresh {
                mg = movegen::KurniaMoveGenerator::new(&cfg);
            }
            let snap = movegen::BoardSnapshot {
                board_tiles: &boards[k],
                game_config: &cfg,
                kwg: &kwg,
                klv: &klv,
            };
            let t0 = cpu_ns();
            mg.gen_moves_unfiltered(&movegen::GenMovesParams {
                board_snapshot: &snap,
                rack: &racks[k],
                max_gen: 1,
                num_exchanges_by_this_player: i16::MAX,
                always_include_pass: false,
                dynamic_leaves: None,
            });
            let dt = cpu_ns() - t0;
            times[k].push(dt);
            let s = mg.plays.first().and_then(|vm| match &vm.play {
                movegen::Play::Place { score, .. } => Some(*score),
                _ => None,
            });
            scores[k] = Some(s);
        }
    }
    for k in 0..n {
        let s = match scores[k].unwrap() {
            Some(v) => {
                assert_eq!(v % wolges::equity::SCALE, 0);
                (v / wolges::equity::SCALE).to_string()
            }
            None => "null".to_string(),
        };
        let ts: Vec<String> = times[k].iter().map(|t| t.to_string()).collect();
        println!("{k} {s} {}", ts.join(" "));
    }
    Ok(())
}
