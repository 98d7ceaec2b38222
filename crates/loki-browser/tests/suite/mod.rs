mod browser;
