package dev.floe.cluster;

import java.net.URI;
import org.apache.pinot.plugin.filesystem.S3PinotFS;
import org.apache.pinot.spi.env.PinotConfiguration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * Pinot 0.11's S3PinotFS with path-style addressing, so that the test cluster can use an S3-compatible server on a
 * loopback port (moto) as its deep store: virtual-hosted addressing would send requests to BUCKET.127.0.0.1, which
 * does not resolve. S3PinotFS 0.11 has no setting for it; everything else (reads, writes, deletes, listing) is
 * S3PinotFS's own code.
 *
 * <p>Configuration, under pinot.controller.storage.factory.s3 or pinot.server.storage.factory.s3: region, endpoint,
 * accessKey, secretKey (all required here).
 */
public final class PathStyleS3PinotFS extends S3PinotFS {
  @Override
  public void init(PinotConfiguration config) {
    String endpoint = required(config, ENDPOINT);
    S3Client client = S3Client.builder()
        .region(Region.of(required(config, REGION)))
        .endpointOverride(URI.create(endpoint))
        .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(required(config, ACCESS_KEY), required(config, SECRET_KEY))))
        .build();
    init(client);
  }

  private static String required(PinotConfiguration config, String key) {
    String v = config.getProperty(key);
    if (v == null || v.isEmpty()) {
      throw new IllegalArgumentException("PathStyleS3PinotFS: missing setting '" + key + "'");
    }
    return v;
  }
}
