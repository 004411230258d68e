#!/usr/bin/env node
/*
 * check-view.js: opens shmemu-view's pages in headless Chromium (playwright-core driving
 * Debian's /usr/bin/chromium; no browser download) and checks what they show. Run by
 * tests/check-view.sh, which writes the pages first:
 *
 *   node tests/browser/check-view.js DIR     DIR holds ring.html, race.html, hang.html, checknbi.html, big.html
 *
 * Each check names what it expected and what it found; the exit status is the number of
 * failed checks (capped at 100). The big page's timings are printed, not asserted (no timing
 * assumptions in tests); what is asserted there is that the page draws only a window of it.
 * CHROMIUM names another browser binary.
 */
'use strict';
const path = require('path');

const dir = process.argv[2];
let failed = 0;
function check(ok, what, found) {
    console.log((ok ? 'ok   ' : 'FAIL ') + what + (found !== undefined ? ' (found ' + found + ')' : ''));
    if (!ok) failed++;
}

const {launch, colours} = require('./common');

async function open(browser, name) {
    const page = await browser.newPage({viewport: {width: 1280, height: 900}});
    page.setDefaultTimeout(5000);   /* a missing element fails its check in seconds */
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto('file://' + path.resolve(dir, name));
    await page.waitForFunction(() => window.shmemuView !== undefined, null, {timeout: 20000});
    return {page, errors};
}
const count = (page, sel) => page.locator(sel).count();
const text = (page, sel) => page.locator(sel).innerText();
/* SVG elements have no innerText: their textContent */
const texts = (page, sel) => page.$$eval(sel, (els) => els.map((e) => e.textContent));

async function ring(browser) {
    console.log('-- ring.html (3 PEs, 51 events, a kernel of 4 blocks per PE)');
    const {page, errors} = await open(browser, 'ring.html');
    const labels = await texts(page, '#diagram text.label');
    check(labels.length === 3 && [0, 1, 2].every((p) => labels[p].includes('PE ' + p)),
          'one lane per PE: PE 0, PE 1, PE 2', JSON.stringify(labels));
    check(await count(page, '#diagram circle.ev') === 51, 'a dot per known event (51)',
          await count(page, '#diagram circle.ev'));
    check(await count(page, 'circle.op-teleport') === 0, 'the unknown op is left out');
    check((await text(page, '#warn')).includes('left out'), 'the header warns of the ops left out');
    const arrows = await count(page, '#diagram path.arrow');
    check(arrows === 8, 'an arrow per put_signal, get, amo and put_nbi (3+1+1+3)', arrows);
    check(await count(page, '#diagram path.arrow.op-put_signal') === 3, '3 put_signal arrows',
          await count(page, '#diagram path.arrow.op-put_signal'));
    const d = await page.locator('#diagram path.arrow.op-put_signal').first().getAttribute('d');
    const ys = d.match(/-?[\d.]+/g).map(Number);
    check(ys[1] !== ys[3], 'a put_signal arrow goes from its PE\'s lane to another lane', d);
    check(await count(page, '#diagram path.hb') === 6, '6 hb edges (3 signal, 3 barrier)',
          await count(page, '#diagram path.hb'));
    check(await count(page, '#diagram rect.wait') === 3, '3 wait bars', await count(page, '#diagram rect.wait'));
    check(await count(page, '#diagram rect.wait.open') === 0, 'every wait was satisfied');
    check(await count(page, '#diagram rect.barrier') === 3, '3 barrier bars');
    check(await count(page, '#diagram rect.blockbar') === 12, '12 block bars (4 blocks on 3 PEs)',
          await count(page, '#diagram rect.blockbar'));
    check(await count(page, '#occ rect.occ-bar') > 0, 'an occupancy timeline', await count(page, '#occ rect.occ-bar'));
    const full = await page.evaluate(() => Math.max(...Array.from(document.querySelectorAll(
        '#occ rect.occ-bar')).map((r) => Number(r.getAttribute('height')))));
    check(full === 46, 'at its peak the kernel holds both SMs of a PE (a full bar, 46 px)', full);
    /* expanding PE 0: its host, stream 0 and 4 blocks */
    await page.locator('#diagram text.label', {hasText: 'PE 0'}).click();
    const sub = await texts(page, '#diagram text.label');
    check(sub.length === 2 + 6 && sub.some((s) => s.includes('stream 0')) &&
          sub.filter((s) => s.includes('scale block')).length === 4,
          'PE 0 expands to host, stream 0 and 4 blocks', JSON.stringify(sub));
    /* stepping */
    const sel = () => page.evaluate(() => window.shmemuView.selected());
    check(await sel() === 0, 'the first event is selected at the start', await sel());
    for (let k = 0; k < 3; k++)
        await page.keyboard.press('ArrowRight');
    check(await sel() === 3, 'three Right arrows select event 3', await sel());
    check(await page.locator('#diagram circle.ev.sel').getAttribute('data-i') === '3',
          'the selected dot is event 3');
    const det = await text(page, '#detail-body');
    check(det.includes('put_signal') && det.includes('ring.c:25 in main()'),
          'the details show the op and its source line', det.split('\n').slice(0, 5).join(' | '));
    await page.keyboard.press('ArrowLeft');
    check(await sel() === 2, 'Left arrow steps back to event 2', await sel());
    await page.click('#next');
    await page.click('#next');
    check(await sel() === 4, 'the next button steps forward twice', await sel());
    await page.click('#prev');
    check(await sel() === 3, 'the prev button steps back', await sel());
    check((await text(page, '#pos')).includes('event 4 / 51'), 'the position reads event 4 / 51',
          await text(page, '#pos'));
    await page.keyboard.press('End');
    check(await sel() === 50, 'End selects the last event', await sel());
    /* the x axis by time */
    await page.selectOption('#xmode', 'time');
    check(await count(page, '#diagram circle.ev') === 51, 'the time axis draws every event too');
    const png = await page.screenshot({fullPage: true});
    const c = await colours(page, png);
    check(c.distinct >= 8 && c.top < 0.97, 'the screenshot is a picture, not one colour',
          c.distinct + ' colours, the commonest on ' + (100 * c.top).toFixed(1) + '% of ' + c.w + 'x' + c.h);
    check(errors.length === 0, 'no script error', errors.join('; '));
    await page.close();
}

async function race(browser) {
    console.log('-- race.html (tests/racy/put_signal_race.c with bin/shmemu-check\'s report)');
    const {page, errors} = await open(browser, 'race.html');
    check(await count(page, '.race-item') === 3, 'the report lists 3 races', await count(page, '.race-item'));
    check(await count(page, '#diagram circle.ev.race') === 1,
          'the put_signal of PE 0 at line 40 (the racing write) is highlighted',
          await count(page, '#diagram circle.ev.race'));
    const hl = await page.locator('#diagram circle.ev.race').getAttribute('data-i');
    check(hl === '0', 'the highlighted event is event 0 (put_signal, PE 0)', hl);
    check(await count(page, '#diagram path.race-mark') === 3,
          'PE 1\'s reads (lines 45, 46: no call there) get a marker each', await count(page, '#diagram path.race-mark'));
    check(await count(page, '#diagram path.race-join') === 3, 'each race joins its two accesses',
          await count(page, '#diagram path.race-join'));
    const mk = await page.evaluate(() => Array.from(document.querySelectorAll('#diagram text.label'))
        .map((t) => [t.textContent, Number(t.getAttribute('y'))]));
    const markY = await page.evaluate(() => {
        const b = document.querySelector('#diagram path.race-mark').getBBox();
        return b.y + b.height / 2;
    });
    const pe1 = mk.find(([s]) => s.includes('PE 1'));
    check(pe1 && Math.abs(markY - (pe1[1] - 4)) < 2, 'the marker sits on PE 1\'s lane', markY + ' vs ' + (pe1 && pe1[1]));
    await page.locator('.race-item').first().click();
    check(await page.evaluate(() => window.shmemuView.selected()) === 1,
          'clicking race 1 selects PE 1\'s call nearest its read (wait_start, line 48)',
          await page.evaluate(() => window.shmemuView.selected()));
    check((await text(page, '#run')).includes('seed 7'), 'the header names the scheduler\'s seed');
    check(errors.length === 0, 'no script error', errors.join('; '));
    await page.close();
}

async function hang(browser) {
    console.log('-- hang.html (PE 1 waits for a signal nobody sends)');
    const {page, errors} = await open(browser, 'hang.html');
    check(await count(page, '#diagram rect.wait.hang') === 1, 'the wait that hangs is red',
          await count(page, '#diagram rect.wait.hang'));
    check(await count(page, '#diagram circle.ev.hang') === 1, 'its wait_start is marked');
    check((await text(page, '#report-body')).includes('The run hung'), 'the report says the run hung');
    check((await text(page, '#warn')).includes('dropped 3'), 'the header warns of 3 dropped events',
          await text(page, '#warn'));
    check(errors.length === 0, 'no script error', errors.join('; '));
    await page.close();
}

async function checknbi(browser) {
    console.log('-- checknbi.html (the checking mode: a put\'s source rewritten before the quiet)');
    const {page, errors} = await open(browser, 'checknbi.html');
    check(await count(page, '#diagram circle.ev.op-error') === 1, 'the failure is a red event on PE 0\'s lane',
          await count(page, '#diagram circle.ev.op-error'));
    const rep = await text(page, '#report-body');
    check(rep.includes('Runtime error') && rep.includes('overwritten before that put was complete'),
          'the report panel gives the checking mode\'s message', rep.slice(0, 80));
    await page.click('#report-body .hang-item');
    check((await text(page, '#pos')).includes('error'), 'clicking the report selects the failing event',
          await text(page, '#pos'));
    check(errors.length === 0, 'no script error', errors.join('; '));
    await page.close();
}

async function big(browser) {
    console.log('-- big.html (10 000 events on 8 PEs)');
    const t0 = Date.now();
    const {page, errors} = await open(browser, 'big.html');
    const loadMs = Date.now() - t0;
    const first = await page.evaluate(() => window.shmemuView.firstRenderMs());
    const nodes = await page.evaluate(() => document.querySelectorAll('#diagram *').length);
    check(nodes > 100 && nodes < 4000, 'only the visible window is drawn (between 100 and 4000 SVG nodes)', nodes);
    /* steps: key events dispatched in the page, each followed by a forced layout */
    const steps = await page.evaluate(() => {
        const times = [];
        for (let k = 0; k < 300; k++) {
            const t = performance.now();
            document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
            void document.body.offsetHeight;
            times.push(performance.now() - t);
        }
        times.sort((a, b) => a - b);
        return {mean: times.reduce((a, b) => a + b) / times.length, p50: times[150], max: times[299],
                sel: window.shmemuView.selected()};
    });
    check(steps.sel === 300, '300 steps select event 300', steps.sel);
    /* a step through the browser's input, painted: key press to the next animation frame */
    const painted = [];
    for (let k = 0; k < 20; k++) {
        const t = await page.evaluate(() => new Promise((done) => {
            const t1 = performance.now();
            document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowLeft', bubbles: true}));
            requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t1)));
        }));
        painted.push(t);
    }
    await page.keyboard.press('End');
    check(await page.evaluate(() => window.shmemuView.selected()) === 9999, 'End selects event 9999');
    check(await count(page, '#diagram circle.ev.sel') === 1, 'the last event is drawn, selected, after the jump');
    const endNodes = await page.evaluate(() => document.querySelectorAll('#diagram *').length);
    check(endNodes < 4000, 'the window at the end is small too', endNodes);
    painted.sort((a, b) => a - b);
    console.log('time   big.html: page loaded in ' + loadMs + ' ms (goto to the page\'s interface); first render done ' +
                first.toFixed(1) + ' ms after navigation start; ' + nodes + ' SVG nodes drawn');
    console.log('time   big.html: a step (keydown + render + layout) mean ' + steps.mean.toFixed(2) + ' ms, median ' +
                steps.p50.toFixed(2) + ' ms, max ' + steps.max.toFixed(2) + ' ms over 300; to the second frame ' +
                'after it (painted) median ' + painted[10].toFixed(1) + ' ms, max ' + painted[19].toFixed(1) + ' ms over 20');
    check(errors.length === 0, 'no script error', errors.join('; '));
    await page.close();
}

(async () => {
    const browser = await launch();
    for (const t of [ring, race, hang, checknbi, big])
        try {
            await t(browser);
        } catch (e) {           /* one page's failure leaves the others to be checked */
            check(false, 'the checks of ' + t.name + '.html ran to their end', String(e).split('\n')[0]);
        }
    await browser.close();
    console.log(failed ? failed + ' check(s) failed' : 'all browser checks passed');
    process.exit(Math.min(failed, 100));
})();
