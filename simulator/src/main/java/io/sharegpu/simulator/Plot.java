package io.sharegpu.simulator;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/** Draws unallocated GPU % against arrived GPU % (75..130), one line per policy, as a PNG. */
final class Plot {
  private static final Color[] COLORS = {
    new Color(0x1f77b4),
    new Color(0xff7f0e),
    new Color(0x2ca02c),
    new Color(0xd62728),
    new Color(0x9467bd),
    new Color(0x8c564b),
    new Color(0xe377c2),
    new Color(0x7f7f7f),
  };

  private Plot() {}

  /**
   * @param curves policy → mean unallocated % at arrived = 75, 76, ... 130
   */
  static void write(Path file, String title, Map<String, double[]> curves) throws IOException {
    System.setProperty("java.awt.headless", "true");
    int w = 960;
    int h = 600;
    int left = 70;
    int right = 190;
    int top = 40;
    int bottom = 60;
    double ymax = 5;
    for (double[] c : curves.values()) {
      for (double v : c) {
        if (!Double.isNaN(v)) {
          ymax = Math.max(ymax, v);
        }
      }
    }
    ymax = Math.ceil(ymax / 5) * 5;
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, w, h);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    int pw = w - left - right;
    int ph = h - top - bottom;
    g.setColor(new Color(0xdddddd));
    for (int x = Replay.CURVE_FROM; x <= Replay.CURVE_TO; x += 5) {
      int px =
          left
              + (int)
                  ((x - Replay.CURVE_FROM) * pw / (double) (Replay.CURVE_TO - Replay.CURVE_FROM));
      g.drawLine(px, top, px, top + ph);
    }
    for (double y = 0; y <= ymax; y += 5) {
      int py = top + ph - (int) (y / ymax * ph);
      g.drawLine(left, py, left + pw, py);
    }
    g.setColor(Color.BLACK);
    g.drawRect(left, top, pw, ph);
    for (int x = Replay.CURVE_FROM; x <= Replay.CURVE_TO; x += 5) {
      int px =
          left
              + (int)
                  ((x - Replay.CURVE_FROM) * pw / (double) (Replay.CURVE_TO - Replay.CURVE_FROM));
      g.drawString(Integer.toString(x), px - 8, top + ph + 18);
    }
    for (double y = 0; y <= ymax; y += 5) {
      int py = top + ph - (int) (y / ymax * ph);
      g.drawString(String.format(Locale.ROOT, "%.0f", y), left - 28, py + 5);
    }
    g.drawString("arrived GPU request, % of capacity", left + pw / 2 - 110, h - 18);
    g.drawString(title, left, 24);
    g.rotate(-Math.PI / 2);
    g.drawString("unallocated GPU, %", -(top + ph / 2 + 60), 22);
    g.rotate(Math.PI / 2);
    int k = 0;
    g.setStroke(new BasicStroke(2f));
    for (Map.Entry<String, double[]> e : curves.entrySet()) {
      g.setColor(COLORS[k % COLORS.length]);
      double[] c = e.getValue();
      int px0 = -1;
      int py0 = -1;
      for (int i = 0; i < c.length; i++) {
        if (Double.isNaN(c[i])) {
          px0 = -1;
          continue;
        }
        int px = left + (int) (i * pw / (double) (c.length - 1));
        int py = top + ph - (int) (c[i] / ymax * ph);
        if (px0 >= 0) {
          g.drawLine(px0, py0, px, py);
        }
        px0 = px;
        py0 = py;
      }
      int ly = top + 20 + 22 * k;
      g.drawLine(left + pw + 15, ly - 5, left + pw + 45, ly - 5);
      g.setColor(Color.BLACK);
      g.drawString(e.getKey(), left + pw + 52, ly);
      k++;
    }
    g.dispose();
    if (!ImageIO.write(img, "png", file.toFile())) {
      throw new IOException("no PNG writer available");
    }
  }
}
