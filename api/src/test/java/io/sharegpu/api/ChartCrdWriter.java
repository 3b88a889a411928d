package io.sharegpu.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.sharegpu.api.gpunode.GPUNode;
import io.sharegpu.api.sharepod.SharePod;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finishes the CRD YAML that fabric8's crd-generator wrote and copies it into the chart.
 *
 * <p>The generator sorts {@code additionalPrinterColumns} by JSON path, which would put AGE first;
 * this puts them in the order the {@link AdditionalPrinterColumn} annotations are declared on the
 * class (REQUEST, LIMIT, MEMORY, NODE, GPUS, PHASE, PRIORITY, AGE) and changes nothing else. Run by
 * the build (exec-maven-plugin, phase process-test-classes) with the generator's folder and the
 * chart's {@code crds/} folder as arguments.
 */
public final class ChartCrdWriter {

  /** The CRD classes of this module. */
  public static final List<Class<? extends CustomResource<?, ?>>> CRD_CLASSES =
      List.of(GPUNode.class, SharePod.class);

  private static final Pattern COLUMN_PATH = Pattern.compile("^    - jsonPath: \"(.*)\"$");

  private ChartCrdWriter() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      throw new IllegalArgumentException("usage: ChartCrdWriter GENERATED_DIR CHART_CRDS_DIR");
    }
    Path generated = Path.of(args[0]);
    Path chart = Path.of(args[1]);
    Files.createDirectories(chart);
    for (Class<? extends CustomResource<?, ?>> type : CRD_CLASSES) {
      Path file = generated.resolve(fileName(type));
      String finished = orderPrinterColumns(Files.readString(file, StandardCharsets.UTF_8), type);
      Files.writeString(file, finished, StandardCharsets.UTF_8);
      Files.writeString(chart.resolve(file.getFileName()), finished, StandardCharsets.UTF_8);
    }
  }

  /**
   * Returns the file name the generator uses for a CRD class, e.g. "sharepods.sharegpu.io-v1.yml".
   */
  public static String fileName(Class<?> type) {
    return CustomResource.getCRDName(type) + "-v1.yml";
  }

  /** Returns the JSON paths of the class's printer columns in declaration order. */
  public static List<String> declaredColumnPaths(Class<?> type) {
    return Arrays.stream(type.getAnnotationsByType(AdditionalPrinterColumn.class))
        .map(AdditionalPrinterColumn::jsonPath)
        .toList();
  }

  /**
   * Reorders the entries of the (single) {@code additionalPrinterColumns} block of {@code yaml} to
   * the declaration order; fails if the block does not hold exactly the declared columns.
   */
  static String orderPrinterColumns(String yaml, Class<?> type) {
    List<String> lines = List.of(yaml.split("\n", -1));
    int start = lines.indexOf("  - additionalPrinterColumns:");
    if (start < 0) {
      throw new IllegalStateException("no additionalPrinterColumns in the CRD of " + type);
    }
    Map<String, List<String>> entries = new LinkedHashMap<>();
    List<String> current = null;
    int end = start + 1;
    for (; end < lines.size(); end++) {
      String line = lines.get(end);
      Matcher m = COLUMN_PATH.matcher(line);
      if (m.matches()) {
        current = new ArrayList<>();
        entries.put(m.group(1), current);
        current.add(line);
      } else if (line.startsWith("      ") && current != null) {
        current.add(line);
      } else {
        break;
      }
    }
    List<String> declared = declaredColumnPaths(type);
    if (!entries.keySet().equals(Set.copyOf(declared))) {
      throw new IllegalStateException(
          "printer columns of " + type + " are " + entries.keySet() + ", declared " + declared);
    }
    List<String> out = new ArrayList<>(lines.subList(0, start + 1));
    declared.forEach(path -> out.addAll(entries.get(path)));
    out.addAll(lines.subList(end, lines.size()));
    return String.join("\n", out);
  }
}
