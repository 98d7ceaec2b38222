'use strict';

const FOLD = {
  à: 'a', á: 'a', â: 'a', ä: 'a', ã: 'a', å: 'a',
  ç: 'c',
  è: 'e', é: 'e', ê: 'e', ë: 'e',
  ì: 'i', í: 'i', î: 'i', ï: 'i',
  ñ: 'n',
  ò: 'o', ó: 'o', ô: 'o', ö: 'o', õ: 'o',
  ù: 'u', ú: 'u', û: 'u', ü: 'u',
};

function slugify(text) {
  return String(text)
    .toLowerCase()
    .replace(/[^\u0000-\u007f]/g, (ch) => FOLD[ch] || '')
    .replace(/[^a-z]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

module.exports = { slugify };
