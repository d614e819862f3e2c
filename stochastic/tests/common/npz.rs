//! The hardware-truth `.npz` files (`../shared/hardware-truth/`): a zip of `.npy` arrays, read
//! with `zip` (deflate only) and `npyz`, for the H200 replay test and the cuBLAS share example.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

const AS_DESCRIBED: &str = "the hardware-truth files are as their README describes";

/// An open `.npz` file.
pub struct Archive(zip::ZipArchive<BufReader<File>>);

impl Archive {
    /// Opens the file; an error when it is absent or no zip.
    pub fn open(path: &Path) -> Result<Archive, String> {
        let file = File::open(path).map_err(|e| e.to_string())?;
        zip::ZipArchive::new(BufReader::new(file)).map(Archive).map_err(|e| e.to_string())
    }

    /// The arrays' names (the members without `.npy`).
    #[allow(dead_code)]
    pub fn names(&self) -> Vec<String> {
        self.0.file_names().filter_map(|n| n.strip_suffix(".npy")).map(str::to_string).collect()
    }

    fn array(&mut self, name: &str) -> npyz::NpyFile<zip::read::ZipFile<'_>> {
        let member = self.0.by_name(&format!("{name}.npy")).unwrap_or_else(|_| panic!("{name} missing"));
        npyz::NpyFile::new(member).expect(AS_DESCRIBED)
    }

    /// An unsigned array's elements (the raw bits of `uint8`/`uint16`/`uint32`) widened to `u32`,
    /// and its shape.
    pub fn bits(&mut self, name: &str) -> (Vec<u32>, Vec<usize>) {
        let f = self.array(name);
        let shape: Vec<usize> = f.shape().iter().map(|&s| s as usize).collect();
        let v = match f.dtype().descr().trim_matches('\'').trim_start_matches(['<', '|', '=']) {
            "u1" => f.into_vec::<u8>().expect(AS_DESCRIBED).into_iter().map(u32::from).collect(),
            "u2" => f.into_vec::<u16>().expect(AS_DESCRIBED).into_iter().map(u32::from).collect(),
            "u4" => f.into_vec::<u32>().expect(AS_DESCRIBED),
            other => panic!("{name}: unexpected dtype {other}"),
        };
        (v, shape)
    }

    /// A string array.
    #[allow(dead_code)]
    pub fn strings(&mut self, name: &str) -> Vec<String> {
        self.array(name).into_vec::<String>().expect(AS_DESCRIBED)
    }

    /// The first element of an integer array.
    #[allow(dead_code)]
    pub fn scalar(&mut self, name: &str) -> i64 {
        self.array(name).into_vec::<i64>().expect(AS_DESCRIBED)[0]
    }
}
