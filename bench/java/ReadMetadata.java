// The Java side of the huge-metadata benchmark (bench/huge-metadata.ts): Iceberg's own TableMetadataParser
// reading one metadata file, as every Java engine does when it loads a table. Compiled and run on the Java
// oracle's classpath (scripts/setup-oracles.sh), so the Iceberg version is the one the oracle pins. Prints
// what it read, so nothing of the parse can be skipped: the snapshot, snapshot-log and metadata-log counts
// and the current snapshot id.
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.hadoop.conf.Configuration;

public class ReadMetadata {
  public static void main(String[] args) {
    HadoopFileIO io = new HadoopFileIO(new Configuration());
    TableMetadata md = TableMetadataParser.read(io, args[0]);
    System.out.println(
        md.snapshots().size() + " " + md.snapshotLog().size() + " " + md.previousFiles().size() + " "
            + (md.currentSnapshot() == null ? "none" : md.currentSnapshot().snapshotId()));
  }
}
