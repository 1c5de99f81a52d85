from memwarden.cli.entry import main

raise SystemExit(main())
