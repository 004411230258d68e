#!/usr/bin/env node
/*
 * gen-log.js: writes a synthetic event log of format 1 (docs/events.md) with N events, for
 * the large-log timings of tests/check-view.sh:  node gen-log.js N PES > big.jsonl
 *
 * Deterministic (a fixed linear congruential generator). Rounds of: each PE put_signals its
 * right neighbour and waits for its left one (with the hb edge), a get or an atomic now and
 * then, a kernel of 4 blocks on 2 SMs every 8th round, a barrier every 16th. Edges are
 * lines of their own and count in seq and in the header's "events", as the recorder writes
 * them: N counts the events alone (edges come on top), reached exactly by trailing fences.
 */
'use strict';
const N = Number(process.argv[2] || 10000), PES = Number(process.argv[3] || 8);
let seed = 12345;
const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
const lines = [];
let t = 0, events = 0;
const ev = (o) => {
    t += 1 + rand(50);
    events++;
    lines.push(Object.assign({seq: lines.length, t: t}, o));
    return lines.length - 1;
};
const edge = (from, to, kind) => lines.push({seq: lines.length, op: 'hb', from: from, to: to, kind: kind});
const host = (pe, line) => ({pe: pe, where: 'host', file: 'big.c', line: line, func: 'main'});
const sig = {obj: 'heap@4096', off: 0};
let round = 0, launch = 0;
while (events < N - 64 * PES) {
    const starts = [], puts = [];
    for (let p = 0; p < PES; p++)
        starts.push(ev(Object.assign({op: 'wait_start', sig: sig, cmp: 'ge', value: round + 1}, host(p, 30))));
    for (let p = 0; p < PES; p++)
        puts.push(ev(Object.assign({op: 'put_signal', peer: (p + 1) % PES, dst: {obj: 'heap@0', off: 8 * p},
                                    bytes: 8, sig: sig, sig_op: 'add', value: 1}, host(p, 25))));
    for (let p = 0; p < PES; p++) {
        const d = ev(Object.assign({op: 'wait_done', sig: sig, cmp: 'ge', value: round + 1, seen: round + 1},
                                   host(p, 30)));
        edge(puts[(p + PES - 1) % PES], d, 'signal');
    }
    const p = rand(PES);
    if (rand(2))
        ev(Object.assign({op: 'get', peer: rand(PES), src: {obj: 'heap@0', off: 0}, bytes: 64}, host(p, 33)));
    else
        ev(Object.assign({op: 'amo', peer: rand(PES), dst: {obj: 'heap@8192', off: 0}, amo: 'fetch_add',
                          value: 1, fetched: round}, host(p, 34)));
    if (round % 8 === 7) {
        launch++;
        for (let q = 0; q < PES; q++) {
            ev(Object.assign({op: 'launch', kernel: 'step', launch: launch, grid: [4, 1, 1],
                              block_dim: [64, 1, 1], stream: 0}, host(q, 40)));
            for (let b = 0; b < 4; b++)
                ev({pe: q, op: 'block_start', where: 'block', kernel: 'step', launch: launch, block: b,
                    thread: -1, sm: b % 2});
            for (let b = 0; b < 4; b++)
                ev({pe: q, op: 'block_end', where: 'block', kernel: 'step', launch: launch, block: b,
                    thread: -1, sm: b % 2});
        }
    }
    if (round % 16 === 15) {
        const bs = [];
        for (let q = 0; q < PES; q++)
            bs.push(ev(Object.assign({op: 'barrier_start', team: 'world'}, host(q, 44))));
        for (let q = 0; q < PES; q++)
            edge(bs[PES - 1], ev(Object.assign({op: 'barrier_done', team: 'world'}, host(q, 44))), 'barrier');
    }
    round++;
}
while (events < N)
    ev(Object.assign({op: 'fence'}, host(rand(PES), 50)));
const header = {shmemu_events: 1, program: './big', args: [], npes: PES, backend: 'threads', order: 'time',
                sched: null, seed: null, events: lines.length, dropped: 0, sms: 2};
process.stdout.write([header].concat(lines).map((o) => JSON.stringify(o)).join('\n') + '\n');
