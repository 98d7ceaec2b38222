/** Split one CSV line into fields, honouring double quotes ("a,b" is one field; "" is an escaped quote). */
export function parseLine(line) {
  return line.split(',').map((f) => f.replace(/^"(.*)"$/, '$1').replace(/""/g, '"'));
}
