use super::*;

#[test]
fn a_denied_path_is_carved_out_and_its_siblings_stay_readable() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    for d in [
        "home/.loki/keys",
        "home/.cargo",
        "repo/.loki/runs",
        "repo/src",
    ] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::fs::write(root.join("home/notes.txt"), "n").unwrap();
    let policy = Policy {
        deny: vec![root.join("home/.loki"), root.join("repo/.loki/runs")],
        // `home` holds a denied path: it is carved, not granted whole; `root` holds the
        // read-only repository, which only its `src` is writable in.
        write: vec![
            root.join("repo/src"),
            root.join("missing"),
            root.join("home"),
            root.clone(),
        ],
        read_only: vec![root.join("repo")],
        pinned: Vec::new(),
        masked: Vec::new(),
        list: vec![root.join("repo")],
        network: Network::Allowed,
        egress_ports: Vec::new(),
    };
    let got = rules(&policy);
    let under: Vec<(String, Grant)> = got
        .iter()
        .filter_map(|r| {
            r.path
                .strip_prefix(&root)
                .ok()
                .map(|p| (p.display().to_string(), r.grant))
        })
        .collect();
    let (r, w, l) = (Grant::Read, Grant::Write, Grant::List);
    // `repo` is listed only because the policy names it.
    assert_eq!(
        under,
        [
            ("home/.cargo".to_string(), r),
            ("home/notes.txt".to_string(), r),
            ("repo/src".to_string(), r),
            ("repo/src".to_string(), w),
            ("home/.cargo".to_string(), w),
            ("home/notes.txt".to_string(), w),
            ("home/.cargo".to_string(), w),
            ("home/notes.txt".to_string(), w),
            ("repo".to_string(), l),
        ]
    );
    // Nothing on the way to a denied path is granted as a whole.
    for r in got.iter().filter(|r| r.grant != Grant::List) {
        assert!(!policy.deny.iter().any(|d| d.starts_with(&r.path)), "{r:?}");
    }
}

#[test]
fn a_symlink_beside_a_denied_path_does_not_reopen_it() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("home/.loki/keys")).unwrap();
    std::os::unix::fs::symlink(root.join("home/.loki/keys"), root.join("home/keys")).unwrap();
    let policy = Policy {
        deny: vec![root.join("home/.loki")],
        write: vec![root.join("home")],
        ..Policy::default()
    };
    let got = rules(&policy);
    assert!(
        !got.iter().any(|r| r.path == root.join("home/keys")),
        "{got:?}"
    );
}

#[test]
fn the_wrapper_command_line_names_every_path() {
    let p = Policy {
        deny: vec!["/h/.loki".into()],
        write: vec!["/w".into(), "/tmp".into()],
        read_only: vec!["/tmp/repo".into()],
        list: vec!["/tmp/repo".into()],
        pinned: vec!["/tmp/repo/.git".into()],
        masked: vec!["/tmp/repo/.loki".into()],
        network: Network::Denied,
        egress_ports: vec![8080],
    };
    let argv: Vec<String> = p
        .wrapper(Path::new("/bin/loki"))
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        argv,
        [
            "/bin/loki",
            "__confine",
            "--deny",
            "/h/.loki",
            "--write",
            "/w",
            "--write",
            "/tmp",
            "--read-only",
            "/tmp/repo",
            "--list",
            "/tmp/repo",
            "--pin",
            "/tmp/repo/.git",
            "--mask",
            "/tmp/repo/.loki",
            "--no-network",
            "--egress-port",
            "8080",
            "--"
        ]
    );
}

#[test]
fn the_model_box_denies_secrets_and_credentials_and_writes_only_its_own_places() {
    let spec = BoxSpec {
        worktree: Some("/r/.loki/worktrees/w".into()),
        protect: vec!["/r/.loki/worktrees/w/.git".into()],
        hide: vec!["/r/.loki/worktrees/w/.loki".into()],
        private: "/tmp/loki-agent-x".into(),
        secrets: vec!["/h/.loki".into()],
        others: vec!["/r/.loki/runs".into()],
        home: Some("/h".into()),
        also_write: Vec::new(),
        also_read_only: vec!["/r".into()],
        list: Vec::new(),
        network: Network::Denied,
    };
    let p = Policy::model_box(&spec);
    for denied in [
        "/h/.loki",
        "/r/.loki/runs",
        "/h/.ssh",
        "/h/.aws",
        "/h/.config/gh",
        "/h/.netrc",
        "/h/.docker/config.json",
        "/h/.git-credentials",
        "/h/.npmrc",
        "/h/.pypirc",
        "/h/.cargo/credentials",
        "/h/.cargo/credentials.toml",
    ] {
        assert!(p.deny.contains(&PathBuf::from(denied)), "{denied}");
    }
    let write: Vec<&str> = p.write.iter().filter_map(|w| w.to_str()).collect();
    assert_eq!(write, ["/r/.loki/worktrees/w", "/tmp/loki-agent-x", "/dev"]);
    assert_eq!(p.read_only, [PathBuf::from("/r")]);
    assert_eq!(p.pinned, [PathBuf::from("/r/.loki/worktrees/w/.git")]);
    assert_eq!(p.masked, [PathBuf::from("/r/.loki/worktrees/w/.loki")]);
    assert_eq!(p.network, Network::Denied);
}
