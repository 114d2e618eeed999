// An op of a dialect nobody registered, in custom syntax.
func.func @f() {
  foo.bar
  return
}
