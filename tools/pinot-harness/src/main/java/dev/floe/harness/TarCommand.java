package dev.floe.harness;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.File;
import java.io.IOException;
import org.apache.pinot.common.utils.TarCompressionUtils;

/** The "tar" subcommand: packs a segment directory with Pinot's TarCompressionUtils (gzip). */
final class TarCommand {
  private final JsonGenerator _out;

  TarCommand(JsonGenerator out) {
    _out = out;
  }

  int run(String[] args) throws Exception {
    if (args.length != 2) {
      throw new Main.UsageException("tar SEGMENT_DIR OUT.tar.gz");
    }
    File dir = new File(args[0]);
    if (!dir.isDirectory()) {
      throw new IOException("tar: " + dir + " is not a directory");
    }
    File out = new File(args[1]);
    TarCompressionUtils.createCompressedTarFile(dir, out);
    _out.writeStartObject();
    _out.writeStringField("tarFile", out.getPath());
    _out.writeNumberField("bytes", out.length());
    _out.writeEndObject();
    _out.writeRaw('\n');
    return 0;
  }
}
