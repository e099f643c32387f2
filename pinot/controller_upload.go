package pinot

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
)

// Upload stores one segment under seg.Name. Without a deep store it is a
// tar push: the tarball goes to the controller (multipart, one part).
// With one it is a metadata push, as Pinot's own batch jobs do it: the
// tarball is put at DeepStore.URI(table, seg.Name), then the controller
// gets only metadata.properties and creation.meta with that URI in the
// DOWNLOAD_URI header, and servers download the segment from the deep
// store. A re-upload of the same name refreshes the segment (servers
// reload it when its CRC changed), so retries are safe.
func (c *Controller) Upload(ctx context.Context, table string, seg Segment) error {
	q := url.Values{"tableName": {table}, "tableType": {"OFFLINE"}}
	r := request{op: "upload segment " + seg.Name + " of " + table, method: http.MethodPost, path: "/v2/segments", query: q}
	if c.DeepStore == nil {
		r.body = multipartFile(seg.Name, seg.TarPath)
	} else {
		meta, err := segmentMetadataTarGz(seg.TarPath, seg.Name)
		if err != nil {
			return fmt.Errorf("upload segment %s: %w", seg.Name, err)
		}
		if err := c.DeepStore.Put(ctx, table, seg.Name, seg.TarPath); err != nil {
			return fmt.Errorf("upload segment %s of %s: %w", seg.Name, table, err)
		}
		r.op = "metadata push of segment " + seg.Name + " of " + table
		r.header = map[string]string{"UPLOAD_TYPE": "METADATA", "DOWNLOAD_URI": c.DeepStore.URI(table, seg.Name)}
		r.body = multipartBytes(seg.Name, seg.Name+".tar.gz", meta)
	}
	w := Write{Op: OpUpload, Table: table, Segments: []string{seg.Name}}
	// 409: another push of the same segment is in progress.
	return call{policy: c.Retry, write: &w, retryConflict: true}.run(ctx, func(ctx context.Context) error {
		return c.send(ctx, r, nil)
	})
}

// multipartFile returns a body factory streaming the file at path as the
// one part of a multipart form, the way Pinot's upload client sends it
// (part name and file name = segment name, octet-stream).
func multipartFile(name, path string) func() (io.ReadCloser, string, error) {
	return func() (io.ReadCloser, string, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, "", err
		}
		pr, pw := io.Pipe()
		mw := multipart.NewWriter(pw)
		go func() {
			defer f.Close()
			part, err := mw.CreatePart(filePartHeader(name, filepath.Base(path)))
			if err == nil {
				_, err = io.Copy(part, f)
			}
			if err == nil {
				err = mw.Close()
			}
			pw.CloseWithError(err)
		}()
		return pr, mw.FormDataContentType(), nil
	}
}

// multipartBytes is multipartFile for a small in-memory file.
func multipartBytes(name, fileName string, data []byte) func() (io.ReadCloser, string, error) {
	return func() (io.ReadCloser, string, error) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		part, err := mw.CreatePart(filePartHeader(name, fileName))
		if err != nil {
			return nil, "", err
		}
		if _, err := part.Write(data); err != nil {
			return nil, "", err
		}
		if err := mw.Close(); err != nil {
			return nil, "", err
		}
		return io.NopCloser(&buf), mw.FormDataContentType(), nil
	}
}

func filePartHeader(name, fileName string) textproto.MIMEHeader {
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", multipart.FileContentDisposition(name, fileName))
	h.Set("Content-Type", "application/octet-stream")
	return h
}
