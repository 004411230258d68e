#!/usr/bin/env node
/*
 * screenshot.js: a PNG of one part of a shmemu-view page, for the course's figures and the
 * docs (scripts/course-figures.sh, `make course-figures`). playwright-core drives Debian's
 * chromium headless, as tests/browser/check-view.js does.
 *
 *   node tests/browser/screenshot.js PAGE.html OUT.png [--part diagram|occ|page]
 *        [--x order|time] [--expand] [--fit] [--select N] [--width PX]
 *
 * --part: the space-time diagram (default), the occupancy timeline, or the whole page;
 * --x: the diagram's x axis; --expand: every PE's host, stream and block lanes; --fit: the whole run in
 * the window's width (the page's "fit" button); --select N:
 * event N selected (its arrows and edges highlighted). The PNG is written to OUT.png.tmp,
 * checked to be a picture (more than one colour, no colour on more than 99.5% of it: not
 * blank), then renamed. Exit 0, or 1 with the reason. CHROMIUM names another browser binary.
 */
'use strict';
const fs = require('fs');
const path = require('path');
const {launch, colours} = require('./common');

function usage(why) {
    console.error('screenshot.js: ' + why + '\nusage: screenshot.js PAGE.html OUT.png [--part ' +
                  'diagram|occ|page] [--x order|time] [--expand] [--fit] [--select N] [--width PX]');
    process.exit(2);
}

const args = process.argv.slice(2);
if (args.length < 2) usage('PAGE.html and OUT.png are needed');
const [pageFile, outFile] = args;
const opt = {part: 'diagram', x: null, expand: false, fit: false, select: null, width: 1280};
for (let i = 2; i < args.length; i++) {
    const a = args[i];
    if (a === '--expand') opt.expand = true;
    else if (a === '--fit') opt.fit = true;
    else if (['--part', '--x', '--select', '--width'].includes(a) && i + 1 < args.length)
        opt[a.slice(2)] = args[++i];
    else usage('unknown or incomplete option ' + a);
}
if (!['diagram', 'occ', 'page'].includes(opt.part)) usage('--part ' + opt.part);
if (opt.x !== null && !['order', 'time'].includes(opt.x)) usage('--x ' + opt.x);
if (!fs.existsSync(pageFile)) usage(pageFile + ' does not exist');

(async () => {
    const browser = await launch();
    try {
        const page = await browser.newPage({viewport: {width: Number(opt.width), height: 900}});
        const errors = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        await page.goto('file://' + path.resolve(pageFile));
        await page.waitForFunction(() => window.shmemuView !== undefined, null, {timeout: 20000});
        if (opt.x !== null) await page.selectOption('#xmode', opt.x);
        /* a picture of the diagram alone: the sticky header and toolbar would cover a tall
         * one's top rows */
        if (opt.part !== 'page')
            await page.addStyleTag({content: '#head, #toolbar { display: none !important; }'});
        if (opt.expand) await page.evaluate(() => document.getElementById('expand').click());
        if (opt.fit) await page.evaluate(() => window.shmemuView.fit());
        if (opt.select !== null)
            await page.evaluate((n) => window.shmemuView.select(n), Number(opt.select));
        await page.waitForTimeout(100); /* one frame after the last change */
        if (errors.length) throw new Error('the page reported: ' + errors.join('; '));
        const sel = {diagram: '#diagram', occ: '#occ', page: 'body'}[opt.part];
        const png = await page.locator(sel).screenshot();
        const stats = await colours(page, png);
        if (stats.w < 50 || stats.h < 20 || stats.distinct < 2 || stats.top > 0.995)
            throw new Error(`the ${opt.part} picture is empty (${stats.w}x${stats.h}, ` +
                            `${stats.distinct} colours, the commonest on ${(100 * stats.top).toFixed(1)}%)`);
        fs.writeFileSync(outFile + '.tmp', png);
        fs.renameSync(outFile + '.tmp', outFile);
        console.log(`${outFile}: ${stats.w}x${stats.h}, ${stats.distinct} colours`);
    } finally {
        await browser.close();
    }
})().catch((e) => { console.error('screenshot.js: ' + pageFile + ': ' + e.message); process.exit(1); });
