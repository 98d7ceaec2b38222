mod browser;
mod evidence;
