/*
 * common.js: what check-view.js and screenshot.js share: starting Debian's Chromium headless
 * through playwright-core (CHROMIUM names another binary), and a PNG's colours counted in a
 * page (no PNG decoder needed in node: how many distinct ones, the share of the commonest,
 * the size), which tells a picture from a blank one.
 */
'use strict';
const {chromium} = require('playwright-core');

function launch() {
    return chromium.launch({
        executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
        /* root needs --no-sandbox; the rest keep Chromium off the (closed) network */
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
               '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
}

async function colours(page, png) {
    return page.evaluate(async (b64) => {
        const img = new Image();
        img.src = 'data:image/png;base64,' + b64;
        await img.decode();
        const c = document.createElement('canvas');
        c.width = img.width;
        c.height = img.height;
        const g = c.getContext('2d');
        g.drawImage(img, 0, 0);
        const px = g.getImageData(0, 0, c.width, c.height).data, count = new Map();
        for (let i = 0; i < px.length; i += 4) {
            const k = (px[i] << 16) | (px[i + 1] << 8) | px[i + 2];
            count.set(k, (count.get(k) || 0) + 1);
        }
        return {distinct: count.size, top: Math.max(...count.values()) / (px.length / 4),
                w: c.width, h: c.height};
    }, png.toString('base64'));
}

module.exports = {launch, colours};
