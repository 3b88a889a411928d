package io.sharegpu.webhook.admission;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Applies JSON Patch {@code add} operations the way kube-apiserver does (RFC 6902): a missing
 * parent is an error, {@code /-} appends, an index inserts, an object member is set.
 */
final class JsonPatchApplier {

  static final JsonMapper MAPPER = JsonMapper.builder().build();

  private JsonPatchApplier() {}

  static Pod apply(Pod pod, List<PatchOperation> patch) {
    JsonNode root = MAPPER.valueToTree(pod);
    for (PatchOperation op : patch) {
      String[] parts = op.path().substring(1).split("/");
      JsonNode parent = root;
      for (int i = 0; i < parts.length - 1; i++) {
        parent = parent.isArray() ? parent.get(Integer.parseInt(parts[i])) : parent.get(parts[i]);
        if (parent == null || parent.isNull()) {
          throw new IllegalStateException("missing parent for " + op.path());
        }
      }
      String last = parts[parts.length - 1];
      JsonNode value = MAPPER.valueToTree(op.value());
      if (parent instanceof ArrayNode array) {
        if (last.equals("-")) {
          array.add(value);
        } else {
          array.insert(Integer.parseInt(last), value);
        }
      } else {
        ((ObjectNode) parent).set(last, value);
      }
    }
    return MAPPER.treeToValue(root, Pod.class);
  }
}
