package io.sharegpu.kubectl.command;

/** {@code -o}: the table, the wide table, JSON or YAML. */
enum OutputFormat {
  table,
  wide,
  json,
  yaml
}
