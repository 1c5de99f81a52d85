from memwarden.cli.main import main

raise SystemExit(main())
