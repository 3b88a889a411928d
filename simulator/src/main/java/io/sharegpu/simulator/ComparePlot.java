package io.sharegpu.simulator;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * Draws {@code compare}'s table as a PNG: one column per pod list, one marked line per policy at
 * its mean unallocated GPU % at 100% arrived.
 */
final class ComparePlot {
  private static final Color[] COLORS = {
    new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0xd62728),
    new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
    new Color(0xbcbd22), new Color(0x17becf), new Color(0x000000), new Color(0xaec7e8),
    new Color(0xff9896), new Color(0x98df8a), new Color(0xc5b0d5)
  };

  private ComparePlot() {}

  /**
   * @param lists the pod lists, in column order
   * @param means policy → mean unallocated % per list (NaN where not run)
   */
  static void write(Path file, String title, List<String> lists, Map<String, double[]> means)
      throws IOException {
    write(file, title, "unallocated GPU at 100% arrived, %", lists, means);
  }

  /**
   * Draws one marked line per series over the columns, under a y axis named {@code yLabel} that
   * starts at 0.
   */
  static void write(
      Path file, String title, String yLabel, List<String> lists, Map<String, double[]> means)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    int w = Math.max(960, 110 + 60 * lists.size() + 190);
    int h = 640;
    int left = 70;
    int right = 190;
    int top = 40;
    int bottom = 110;
    double ymax = 1;
    for (double[] c : means.values()) {
      for (double v : c) {
        if (!Double.isNaN(v)) {
          ymax = Math.max(ymax, v);
        }
      }
    }
    double step = ymax <= 10 ? 1 : 5;
    ymax = Math.ceil(ymax / step) * step;
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, w, h);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    int pw = w - left - right;
    int ph = h - top - bottom;
    int n = lists.size();
    g.setColor(new Color(0xdddddd));
    for (double y = 0; y <= ymax; y += step) {
      int py = top + ph - (int) (y / ymax * ph);
      g.drawLine(left, py, left + pw, py);
    }
    for (int i = 0; i < n; i++) {
      g.drawLine(x(i, n, left, pw), top, x(i, n, left, pw), top + ph);
    }
    g.setColor(Color.BLACK);
    g.drawRect(left, top, pw, ph);
    for (double y = 0; y <= ymax; y += step) {
      int py = top + ph - (int) (y / ymax * ph);
      g.drawString(String.format(Locale.ROOT, "%.0f", y), left - 28, py + 5);
    }
    for (int i = 0; i < n; i++) {
      int px = x(i, n, left, pw);
      g.rotate(-Math.PI / 2, px + 4, top + ph + 8);
      String label = lists.get(i);
      int width = g.getFontMetrics().stringWidth(label);
      g.drawString(label, px + 4 - width, top + ph + 8);
      g.rotate(Math.PI / 2, px + 4, top + ph + 8);
    }
    g.drawString(title, left, 24);
    g.rotate(-Math.PI / 2);
    g.drawString(yLabel, -(top + ph / 2 + 110), 22);
    g.rotate(Math.PI / 2);
    int k = 0;
    g.setStroke(new BasicStroke(1.5f));
    for (Map.Entry<String, double[]> e : means.entrySet()) {
      g.setColor(COLORS[k % COLORS.length]);
      double[] c = e.getValue();
      int px0 = -1;
      int py0 = -1;
      for (int i = 0; i < c.length; i++) {
        if (Double.isNaN(c[i])) {
          px0 = -1;
          continue;
        }
        int px = x(i, n, left, pw);
        int py = top + ph - (int) (c[i] / ymax * ph);
        g.fillOval(px - 3, py - 3, 7, 7);
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

  private static int x(int i, int n, int left, int pw) {
    return left + (int) ((i + 0.5) * pw / n);
  }
}
