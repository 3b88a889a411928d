package io.sharegpu.images;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One image archive written by images/build (an OCI image layout in a tar), read back: its index
 * entry, manifest, config and the entries of each layer.
 */
record OciArchive(
    Path path, JsonNode indexEntry, JsonNode manifest, JsonNode config, List<Layer> layers) {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /**
   * One layer: its digest, compressed size, the history comment images/build gave it, its files.
   */
  record Layer(
      String digest, long compressedBytes, String createdBy, List<TarArchiveEntry> entries) {

    boolean has(String name) {
      return entries.stream().anyMatch(e -> e.getName().equals(name));
    }
  }

  static OciArchive read(Path archive) throws IOException {
    Map<String, byte[]> files = new LinkedHashMap<>();
    try (InputStream in = Files.newInputStream(archive);
        TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
      for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
        if (e.isFile()) {
          files.put(e.getName(), tar.readAllBytes());
        }
      }
    }
    JsonNode index = JSON.readTree(files.get("index.json"));
    JsonNode entry = index.get("manifests").get(0);
    JsonNode manifest = JSON.readTree(blob(files, entry.get("digest").asString()));
    JsonNode config = JSON.readTree(blob(files, manifest.at("/config/digest").asString()));
    List<Layer> layers = new ArrayList<>();
    JsonNode history = config.get("history");
    for (int i = 0; i < manifest.get("layers").size(); i++) {
      JsonNode descriptor = manifest.get("layers").get(i);
      String digest = descriptor.get("digest").asString();
      layers.add(
          new Layer(
              digest,
              descriptor.get("size").asLong(),
              history.get(i).get("created_by").asString(),
              entries(blob(files, digest))));
    }
    return new OciArchive(archive, entry, manifest, config, List.copyOf(layers));
  }

  String reference() {
    return indexEntry.at("/annotations/io.containerd.image.name").asString();
  }

  JsonNode imageConfig() {
    return config.get("config");
  }

  List<String> entrypoint() {
    List<String> entrypoint = new ArrayList<>();
    imageConfig().get("Entrypoint").forEach(n -> entrypoint.add(n.asString()));
    return entrypoint;
  }

  String label(String key) {
    JsonNode value = imageConfig().at("/Labels/" + key.replace("/", "~1"));
    return value.isMissingNode() ? "" : value.asString();
  }

  long compressedBytes() {
    return layers.stream().mapToLong(Layer::compressedBytes).sum();
  }

  private static byte[] blob(Map<String, byte[]> files, String digest) {
    byte[] blob = files.get("blobs/sha256/" + digest.substring("sha256:".length()));
    if (blob == null) {
      throw new IllegalStateException("the archive has no blob " + digest);
    }
    return blob;
  }

  private static List<TarArchiveEntry> entries(byte[] gzippedTar) throws IOException {
    List<TarArchiveEntry> entries = new ArrayList<>();
    try (TarArchiveInputStream tar =
        new TarArchiveInputStream(new GZIPInputStream(new ByteArrayInputStream(gzippedTar)))) {
      for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
        entries.add(e);
      }
    }
    return List.copyOf(entries);
  }
}
