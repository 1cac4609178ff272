//! The release workflow and `cargo binstall`'s metadata name the same
//! archive, so a binary a user downloads is where binstall looks (issue 32).
//! The workflow itself runs on GitHub; here its packaging step's names and
//! the metadata are checked against each other.

fn read(rel: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// The value of `key = "..."` in the binstall table of Cargo.toml.
fn binstall(key: &str) -> String {
    let manifest: toml_edit::DocumentMut = read("Cargo.toml").parse().unwrap();
    manifest["package"]["metadata"]["binstall"][key]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn binstall_looks_for_the_archive_the_release_workflow_attaches() {
    let workflow = read(".github/workflows/release.yml");
    // The workflow's archive: memsync-v${version}-${{ matrix.target }}.tar.gz
    assert!(
        workflow.contains("name=\"memsync-v${version}-${{ matrix.target }}\""),
        "{workflow}"
    );
    assert!(workflow.contains("tar czf \"$name.tar.gz\" \"$name\""));
    let url = binstall("pkg-url");
    assert!(
        url.ends_with("/releases/download/v{ version }/memsync-v{ version }-{ target }.tar.gz"),
        "{url}"
    );
    assert_eq!(
        binstall("bin-dir"),
        "memsync-v{ version }-{ target }/{ bin }{ binary-ext }"
    );
    assert_eq!(binstall("pkg-fmt"), "tgz");
    // Every target it builds is one binstall can ask for.
    for target in [
        "x86_64-unknown-linux-musl",
        "aarch64-unknown-linux-musl",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
    ] {
        assert!(workflow.contains(&format!("target: {target}")), "{target}");
    }
}
