'use strict';

function escapeXml(s) {
  return String(s).replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'));
}

const CHAR_W = 7;
const PAD = 10;

function renderBadge(label, message, color = '#4c1') {
  const lw = label.length * CHAR_W + PAD;
  const mw = message.length * CHAR_W + PAD;
  const l = escapeXml(label);
  const m = escapeXml(message);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${lw + mw}" height="20" role="img" aria-label="${l}: ${m}">` +
    `<rect width="${lw}" height="20" fill="#555"/>` +
    `<rect x="${lw}" width="${mw}" height="20" fill="${color}"/>` +
    `<text x="${lw / 2}" y="14">${l}</text>` +
    `<text x="${lw + mw / 2}" y="14">${m}</text>` +
    `</svg>`
  );
}

module.exports = { renderBadge, escapeXml };
